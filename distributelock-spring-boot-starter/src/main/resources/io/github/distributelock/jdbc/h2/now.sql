-- The database clock in milliseconds since the epoch.
SELECT DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP) AS now_ms
