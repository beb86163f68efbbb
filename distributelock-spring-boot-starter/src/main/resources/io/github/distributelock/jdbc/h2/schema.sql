-- The lock table of distributelock on H2: one row per held lock, leases on the database
-- clock, fencing tokens from a sequence. Safe to run again. H2 counts the length of a character
-- column in UTF-16 units, two for a character outside the Basic Multilingual Plane (an emoji), so
-- 1024 and 510 units hold the 512-character keys and 255-character owners the backend accepts.
CREATE SEQUENCE IF NOT EXISTS ${sequence};

CREATE TABLE IF NOT EXISTS ${table} (
	lock_key VARCHAR(1024) NOT NULL PRIMARY KEY,
	owner VARCHAR(510) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL
);

-- The fair, read/write and permit locks keep the row above as the key's lock (held by a fair
-- owner, or by a marker of readers, a writer or permit holders), and these three tables beside
-- it. Waiters of fair and write locks, in arrival order, each with a lease of its own:
CREATE TABLE IF NOT EXISTS ${table}_q (
	lock_key VARCHAR(1024) NOT NULL,
	owner VARCHAR(510) NOT NULL,
	kind VARCHAR(8) NOT NULL,
	arrival BIGINT NOT NULL,
	expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	PRIMARY KEY (lock_key, owner)
);

-- Readers and the writer of read/write locks, each with its lease and token:
CREATE TABLE IF NOT EXISTS ${table}_h (
	lock_key VARCHAR(1024) NOT NULL,
	owner VARCHAR(510) NOT NULL,
	kind VARCHAR(8) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	PRIMARY KEY (lock_key, owner)
);

-- Permit holders, one row per slot 0 to N-1 of the key: the primary key bounds them to N.
CREATE TABLE IF NOT EXISTS ${table}_p (
	lock_key VARCHAR(1024) NOT NULL,
	slot INT NOT NULL,
	owner VARCHAR(510) NOT NULL,
	fencing_token BIGINT NOT NULL,
	expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	PRIMARY KEY (lock_key, slot)
);
