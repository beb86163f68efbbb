-- Passes a fair lock from its holder to the next claim of the same JVM in one round trip, if
-- that claim heads the queue of waiters: it takes the lock word with its own lease and the
-- key's next fencing token, and leaves the queue; no waiter is woken, since the key stays
-- held. If another waiter heads the queue, of this JVM or another, the lock is released as
-- fair-release.lua releases it and the claim keeps its place, so waiters are still served in
-- arrival order. If the holder does not hold the lock any more (its lease ran out, or a
-- failover lost it), the next claim makes the attempt of fair-acquire.lua instead: it may head
-- the queue of a free key, which nobody else would wake it to take.
-- KEYS[1]: the lock word; KEYS[2]: the fencing counter; KEYS[3]: the queue (zset: owner ->
-- arrival number); KEYS[4]: the waiter leases (zset: owner -> deadline in server ms)
-- ARGV[1]: the holder's lock word value; ARGV[2]: the next claim's lock word value;
-- ARGV[3]: the next owner; ARGV[4]: the next claim's lease in ms; ARGV[5]: how long an idle
-- fencing counter is kept, in ms; ARGV[6]: the release channel; ARGV[7]: the waiter lease in ms;
-- ARGV[8]: 1 if the next owner is unique to its acquisition, 0 if the caller chose it;
-- ARGV[9]: the holder's fencing token
-- Returns {1, 1, fencing token} when handed over, {1, 0, -1} when released to the head of the
-- queue; when the holder did not hold the lock, 0 followed by fair-acquire.lua's reply for the
-- next claim: {0, 1, fencing token}, {0, 0, remaining lease of the holder in ms or a negative
-- number} or {0, -1, kind of the holder}; the first element is 2 instead of 0 when what the
-- first run of a copy of this hand-over sent again would have left is found: the next claim
-- holds the lock already, or the lock word is free and the counter still holds the holder's
-- token (nobody took the key since the holder released it to the head of the queue).
local held = redis.call('GET', KEYS[1])
if held ~= ARGV[1] then
  local holder = 0
  if (held == ARGV[2] and ARGV[8] == '1') or (not held and redis.call('GET', KEYS[2]) == ARGV[9]) then
    holder = 2
  end
  local attempt = fair_attempt(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[7],
    ARGV[8])
  return {holder, attempt[1], attempt[2]}
end
local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
if head ~= ARGV[3] and prune_waiters(KEYS[3], KEYS[4], now_ms()) > 0 then
  -- Crashed waiters ahead of the next claim leave the queue, which it may now head.
  head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
end
if head == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
  redis.call('ZREM', KEYS[3], ARGV[3])
  redis.call('ZREM', KEYS[4], ARGV[3])
  return {1, 1, next_token(KEYS[2], ARGV[5])}
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[6], '1')
return {1, 0, -1}
