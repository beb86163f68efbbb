-- Extends the lease of a read lock or a permit if this owner holds it and its lease has not
-- run out, and keeps the lock word (and the holders) for at least as long.
-- KEYS[1]: the lock word; KEYS[2]: the holders
-- ARGV[1]: the marker of this kind; ARGV[2]: the owner; ARGV[3]: the lease in ms
-- Returns 1 if renewed, 0 if this owner does not hold it any more.
local now = now_ms()
local deadline = redis.call('ZSCORE', KEYS[2], ARGV[2])
if not deadline or tonumber(deadline) <= now or redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local lease = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], n2s(now + lease), ARGV[2])
local px = math.max(redis.call('PTTL', KEYS[1]), lease)
redis.call('PEXPIRE', KEYS[1], px)
redis.call('PEXPIRE', KEYS[2], px)
return 1
