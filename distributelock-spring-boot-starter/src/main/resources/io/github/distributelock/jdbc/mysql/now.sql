-- The database clock in milliseconds since the epoch.
SELECT CAST(ROUND(UNIX_TIMESTAMP(NOW(6)) * 1000) AS SIGNED) AS now_ms
