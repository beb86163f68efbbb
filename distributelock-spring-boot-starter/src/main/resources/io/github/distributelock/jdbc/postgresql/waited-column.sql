-- Fails with SQLSTATE 42703 (undefined column) when the lock table was created without the
-- waited column, which acquire-marking.sql and release-notify-waited.sql need.
SELECT waited FROM ${table} WHERE FALSE
