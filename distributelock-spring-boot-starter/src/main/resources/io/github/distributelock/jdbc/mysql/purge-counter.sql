-- Deletes the fencing counter's rows but the newest: the AUTO_INCREMENT counter lives on in
-- the table (MySQL 8.0 keeps it across restarts), and the newest row keeps it there even for a
-- server that would recompute it from the rows. Run after purge.sql, at the same pace. The
-- nested query is materialized, as MySQL does not let a DELETE read its own table directly.
DELETE FROM ${sequence}
WHERE id < (SELECT newest FROM (SELECT MAX(id) AS newest FROM ${sequence}) AS counter)
