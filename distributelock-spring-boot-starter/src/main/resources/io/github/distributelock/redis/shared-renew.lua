-- Sets the lease of a read lock or a permit if this owner holds it and its lease has not
-- run out. A holder alone in the lock word sets the word's lease, as renew.lua does. Of the
-- holders set, the lock word (and the holders) then live as long as the latest holder's
-- lease, so that a lease cut to the rest of a minimum hold frees the key then, not when the
-- longer lease it had would have ended; waiters, which timed their wait by the longer one,
-- are woken when the word's time to live shrinks.
-- KEYS[1]: the lock word; KEYS[2]: the holders
-- ARGV[1]: the marker of this kind; ARGV[2]: the owner; ARGV[3]: the lease in ms;
-- ARGV[4]: the release channel
-- Returns 1 if renewed, 0 if this owner does not hold it any more.
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] .. '\0' .. ARGV[2] then
  local before = redis.call('PTTL', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  if tonumber(ARGV[3]) < before then
    redis.call('PUBLISH', ARGV[4], '1')
  end
  return 1
end
if held ~= ARGV[1] then
  return 0
end
local now = now_ms()
local deadline = redis.call('ZSCORE', KEYS[2], ARGV[2])
if not deadline or tonumber(deadline) <= now then
  return 0
end
redis.call('ZADD', KEYS[2], n2s(now + tonumber(ARGV[3])), ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local px = tonumber(redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]) - now
local before = redis.call('PTTL', KEYS[1])
redis.call('PEXPIRE', KEYS[1], px)
redis.call('PEXPIRE', KEYS[2], px)
if px < before then
  redis.call('PUBLISH', ARGV[4], '1')
end
return 1
