-- Extends the lease only if this owner still holds the lock. A lease cut shorter (to the
-- rest of a minimum hold) wakes the waiters: they timed their wait by the longer one.
-- KEYS[1]: the lock key; ARGV[1]: the owner token; ARGV[2]: the lease in milliseconds;
-- ARGV[3]: the release channel
if redis.call('GET', KEYS[1]) == ARGV[1] then
  local before = redis.call('PTTL', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if tonumber(ARGV[2]) < before then
    redis.call('PUBLISH', ARGV[3], '1')
  end
  return 1
end
return 0
