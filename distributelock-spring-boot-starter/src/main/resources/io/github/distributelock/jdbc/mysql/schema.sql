-- The lock table of distributelock on MySQL 8.0 or later: one row per held lock, leases on
-- the database clock in UTC, fencing tokens from the AUTO_INCREMENT counter of a table of
-- their own (MySQL has no sequences; 8.0 keeps that counter across restarts). Keys and
-- owners are binary so that they compare exactly: MySQL's utf8mb4 collations fold case or
-- accents, and utf8mb4_bin pads trailing spaces. 2048 bytes hold 512 characters of UTF-8,
-- within InnoDB's 3072-byte index limit. Safe to run again.
-- Each table is indexed by expires_at, by which the purge of released rows finds the rows it
-- deletes (purge-candidates.sql) without reading them all.
CREATE TABLE IF NOT EXISTS ${sequence} (
	id BIGINT NOT NULL AUTO_INCREMENT,
	PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS ${table} (
	lock_key VARBINARY(2048) NOT NULL,
	owner VARBINARY(1020) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	acquired_at DATETIME(6) NOT NULL,
	PRIMARY KEY (lock_key),
	INDEX expires_at_idx (expires_at)
) ENGINE = InnoDB;

-- The fair, read/write and permit locks keep the row above as the key's lock (held by a fair
-- owner, or by a marker of readers, a writer or permit holders), and these three tables beside
-- it, with keys and owners binary as above (the primary key of key and owner is 3068 bytes,
-- within InnoDB's 3072). Waiters of fair and write locks, in arrival order, each with a lease of
-- its own:
CREATE TABLE IF NOT EXISTS ${table}_q (
	lock_key VARBINARY(2048) NOT NULL,
	owner VARBINARY(1020) NOT NULL,
	kind VARCHAR(8) NOT NULL,
	arrival BIGINT NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	PRIMARY KEY (lock_key, owner),
	INDEX expires_at_idx (expires_at)
) ENGINE = InnoDB;

-- Readers and the writer of read/write locks, each with its lease and token:
CREATE TABLE IF NOT EXISTS ${table}_h (
	lock_key VARBINARY(2048) NOT NULL,
	owner VARBINARY(1020) NOT NULL,
	kind VARCHAR(8) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	acquired_at DATETIME(6) NOT NULL,
	PRIMARY KEY (lock_key, owner),
	INDEX expires_at_idx (expires_at)
) ENGINE = InnoDB;

-- Permit holders, one row per slot 0 to N-1 of the key: the primary key bounds them to N.
CREATE TABLE IF NOT EXISTS ${table}_p (
	lock_key VARBINARY(2048) NOT NULL,
	slot INT NOT NULL,
	owner VARBINARY(1020) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	acquired_at DATETIME(6) NOT NULL,
	PRIMARY KEY (lock_key, slot),
	INDEX expires_at_idx (expires_at)
) ENGINE = InnoDB;
