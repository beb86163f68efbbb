-- The database clock in milliseconds since the epoch.
SELECT CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT) AS now_ms
