-- One attempt at a read lock or a permit: joins the shared holders, each with its own
-- lease on the server clock, if the lock word is free or holds this kind, no writer waits in
-- the queue (waiting writers keep later readers out), and, for permits, fewer than the
-- permitted number hold the key. The first holder is kept in the lock word itself (the
-- marker, a zero byte and the owner), which lives as long as its lease, as a plain lock's
-- does; a second holder moves it into the holders set, each holder with its own lease
-- deadline there, and the word then holds the marker alone for as long as the latest
-- holder's lease, until the last holder leaves (one left stays in the set), so plain
-- holders and old nodes stay out. Holders whose lease ran out (crashed) are no longer
-- counted. A key held as another family of kinds, or as permits of another count, is a
-- conflict.
-- KEYS[1]: the lock word; KEYS[2]: the fencing counter; KEYS[3]: the holders (zset: owner
-- -> lease deadline in server ms); KEYS[4]: the queue; KEYS[5]: the waiter leases
-- ARGV[1]: the marker of this kind; ARGV[2]: the owner; ARGV[3]: the lease in ms;
-- ARGV[4]: how long an idle fencing counter is kept, in ms; ARGV[5]: the most holders,
-- or 0 for any number; ARGV[6]: 1 if the owner is unique to this acquisition, 0 if the caller
-- chose it
-- Returns {1, fencing token} when taken, {0, ms until a holder's lease ends (or, while
-- writers wait, the last waiter's lease, if that comes first) or a negative number} when
-- not, {-1, kind of the holder} on a conflict.
local marker = ARGV[1]
local alone = marker .. '\0' .. ARGV[2]
local lease = tonumber(ARGV[3])
local held = redis.call('GET', KEYS[1])
local single = held and held ~= marker and string.sub(held, 1, #marker + 1) == marker .. '\0'
if held and held ~= marker and not single then
  local kind = held_kind(held)
  if family(kind) ~= family(held_kind(marker)) then
    return {-1, kind}
  end
  return {0, redis.call('PTTL', KEYS[1])}
end
-- Whether a unique owner holds the key already: it took it in this attempt, which its
-- client sent again once a dropped connection was back, and neither writers queued since
-- nor the last permit, its own, keep it out. Asked only where something would keep the
-- attempt out, so that an attempt let in pays nothing for it. It draws a new token: other
-- holders take tokens of the key while it is held.
local function own()
  if ARGV[6] ~= '1' then
    return false
  end
  if held == alone then
    return true
  end
  local ends = held == marker and redis.call('ZSCORE', KEYS[3], ARGV[2])
  return ends and tonumber(ends) > now_ms() or false
end
-- Crashed waiters are pruned only where there is a queue: an uncontended reader pays for
-- no queue.
local queued = redis.call('EXISTS', KEYS[4]) == 1 and not own()
if queued then
  prune_waiters(KEYS[4], KEYS[5], now_ms())
  -- Entries left in a queue without a single waiter lease are leftovers (see
  -- fair_attempt), which only a writer's attempt on the free key would remove: they
  -- keep no reader out.
  if redis.call('EXISTS', KEYS[5]) == 0 then
    redis.call('DEL', KEYS[4])
    queued = false
  end
end
if queued then
  -- Readers get in once no writer waits. If the writers waiting crashed, nothing tells
  -- the readers when the last one's lease runs out, free key or not (the readers holding
  -- it may hold it for long), so they attempt again then, or when the holders' lease
  -- ends, whichever comes first.
  local wait = held and redis.call('PTTL', KEYS[1]) or -2
  local last = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')[2]
  if last then
    local ends = math.max(1, tonumber(last) - now_ms() + 1)
    if wait < 0 or ends < wait then
      wait = ends
    end
  end
  return {0, wait}
end
if not held or held == alone then
  -- Alone, or this owner alone again (an attempt tried again): its lease starts now.
  redis.call('SET', KEYS[1], alone, 'PX', lease)
  return {1, next_token(KEYS[2], ARGV[4])}
end
local most = tonumber(ARGV[5])
local now = now_ms()
if single then
  if most == 1 then
    return {0, redis.call('PTTL', KEYS[1])}
  end
  -- A second holder: the first keeps the lease it has left, now in the holders set.
  redis.call('ZADD', KEYS[3], n2s(now + redis.call('PTTL', KEYS[1])), string.sub(held, #marker + 2))
else
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if most > 0 and redis.call('ZCARD', KEYS[3]) >= most and not own() then
    local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2]
    return {0, tonumber(first) - now}
  end
end
redis.call('ZADD', KEYS[3], n2s(now + lease), ARGV[2])
local px = math.max(redis.call('PTTL', KEYS[1]), lease)
redis.call('SET', KEYS[1], marker, 'PX', px)
redis.call('PEXPIRE', KEYS[3], px)
return {1, next_token(KEYS[2], ARGV[4])}
