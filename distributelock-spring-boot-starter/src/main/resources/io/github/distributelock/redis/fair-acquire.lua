-- One attempt at a fair lock or a write lock: takes the lock word if it is free and this
-- claim heads the queue of waiters; otherwise queues the claim (or refreshes its place)
-- with a waiter lease on the server clock, so that waiters are served in arrival order and
-- a waiter that stops attempting leaves the queue when its lease runs out. A key held as
-- another family of kinds is a conflict: the claim is not queued.
-- KEYS[1]: the lock word; KEYS[2]: the fencing counter; KEYS[3]: the queue (zset: owner ->
-- arrival number); KEYS[4]: the waiter leases (zset: owner -> deadline in server ms)
-- ARGV[1]: the lock word value of this claim (its marker and owner); ARGV[2]: the owner;
-- ARGV[3]: the lease in ms; ARGV[4]: how long an idle fencing counter is kept, in ms;
-- ARGV[5]: the waiter lease in ms
-- Returns {1, fencing token} when taken, {0, remaining lease of the holder in ms or a
-- negative number} when queued, {-1, kind of the holder} on a conflict.
local now = now_ms()
prune_waiters(KEYS[3], KEYS[4], now)
local held = redis.call('GET', KEYS[1])
if held then
  local kind = held_kind(held)
  if family(kind) ~= family(held_kind(ARGV[1])) then
    redis.call('ZREM', KEYS[3], ARGV[2])
    redis.call('ZREM', KEYS[4], ARGV[2])
    return {-1, kind}
  end
else
  local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if head == nil or head == ARGV[2] then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
    redis.call('ZREM', KEYS[3], ARGV[2])
    redis.call('ZREM', KEYS[4], ARGV[2])
    return {1, next_token(KEYS[2], ARGV[4])}
  end
end
if not redis.call('ZSCORE', KEYS[3], ARGV[2]) then
  -- Arrival numbers grow within the life of the queue; no client clock, no counter key.
  local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')[2]
  redis.call('ZADD', KEYS[3], n2s(last and tonumber(last) + 1 or 1), ARGV[2])
end
redis.call('ZADD', KEYS[4], n2s(now + tonumber(ARGV[5])), ARGV[2])
-- The queue outlives its longest waiter lease and no more: an abandoned queue goes away.
keep_at_least(KEYS[3], tonumber(ARGV[5]))
keep_at_least(KEYS[4], tonumber(ARGV[5]))
return {0, redis.call('PTTL', KEYS[1])}
