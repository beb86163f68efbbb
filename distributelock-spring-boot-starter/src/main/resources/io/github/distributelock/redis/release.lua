-- Deletes the lock only if this owner still holds it, and wakes the waiters.
-- KEYS[1]: the lock key; ARGV[1]: the owner token; ARGV[2]: the release channel
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '1')
  return 1
end
return 0
