-- This owner leaves the key's queue: it acquired, or gave up waiting.
DELETE FROM ${table}_q WHERE lock_key = :key AND owner = :owner
