-- The lock table of distributelock on MariaDB 10.5 or later: one row per held lock, leases
-- on the database clock in UTC, fencing tokens from a sequence. Keys and owners are
-- binary so that they compare exactly (no case folding, accent folding or trailing-space
-- padding); 2048 bytes hold 512 characters of UTF-8. Safe to run again.
CREATE SEQUENCE IF NOT EXISTS ${sequence};

CREATE TABLE IF NOT EXISTS ${table} (
	lock_key VARBINARY(2048) NOT NULL,
	owner VARBINARY(1020) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	acquired_at DATETIME(6) NOT NULL,
	PRIMARY KEY (lock_key)
) ENGINE = InnoDB;
