-- Deletes the lock only if this owner still holds it, and wakes the waiters.
-- KEYS[1]: the lock key; KEYS[2]: its fencing counter, in the same hash slot
-- ARGV[1]: the owner token; ARGV[2]: the release channel; ARGV[3]: the fencing token of the
-- hold, or 0 if not known
-- Returns 1 if released, 0 if this owner did not hold it, 2 if it did not and the key's counter
-- still holds this hold's token: nobody took the key since (every acquisition takes a token
-- above it, after a failover too), as when the client sent this release again after its first
-- run (see RedisLockBackend).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '1')
  return 1
end
if ARGV[3] ~= '0' and redis.call('GET', KEYS[2]) == ARGV[3] then
  return 2
end
return 0
