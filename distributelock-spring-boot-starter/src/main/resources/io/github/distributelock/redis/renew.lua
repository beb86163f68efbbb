-- Extends the lease only if this owner still holds the lock.
-- KEYS[1]: the lock key; ARGV[1]: the owner token; ARGV[2]: the lease in milliseconds
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
