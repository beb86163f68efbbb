-- Adds the waited column to a lock table created before it existed, without rewriting the
-- table. Run by createSchema only when the column is missing: ALTER TABLE needs the table's
-- owner even when the column exists.
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS waited BOOLEAN NOT NULL DEFAULT FALSE
