-- The lock table of distributelock on PostgreSQL: one row per held lock, leases on the
-- database clock, fencing tokens from a sequence. Safe to run again.
CREATE SEQUENCE IF NOT EXISTS ${sequence};

CREATE TABLE IF NOT EXISTS ${table} (
	lock_key VARCHAR(512) NOT NULL PRIMARY KEY,
	owner VARCHAR(255) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	acquired_at TIMESTAMP WITH TIME ZONE NOT NULL
);
