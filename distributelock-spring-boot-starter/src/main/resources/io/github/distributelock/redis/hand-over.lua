-- Passes a plain lock from its holder to the next caller of the same JVM in one round trip: if
-- the holder still holds it, the next owner takes it with its own lease and the key's next
-- fencing token (drawn as acquire.lua draws it), and no waiter is woken, since the key stays
-- held; if the holder does not hold it any more, the next owner makes the attempt of
-- acquire.lua. Either way the lock word is never free in between for another instance to take.
-- KEYS[1]: the lock key; KEYS[2]: its fencing counter, in the same hash slot
-- ARGV[1]: the holder's owner token; ARGV[2]: the next owner token; ARGV[3]: the next owner's
-- lease in milliseconds; ARGV[4]: how long an idle fencing counter is kept, in milliseconds;
-- ARGV[5]: 1 if the next owner token is unique to its acquisition, 0 if the caller chose it
-- Returns {1, 1, fencing token} when handed over; otherwise 0 followed by acquire.lua's reply
-- for the next owner: {0, 1, fencing token}, {0, 0, remaining lease of the holder in ms} or
-- {0, -1, kind of the holder}; {2, 1, fencing token} when the next owner holds the lock
-- already, as a copy of this hand-over sent again after its first run finds it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return {1, 1, next_token(KEYS[2], ARGV[4])}
end
if redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3]) then
  return {0, 1, next_token(KEYS[2], ARGV[4])}
end
local held = redis.call('GET', KEYS[1])
if held == ARGV[2] and ARGV[5] == '1' then
  -- The next owner holds the lock already: this hand-over was sent again, after a dropped
  -- connection, once it had run (the engine does not attempt for a claim it hands a lock
  -- to). Whether the holder still held the lock then is not known any more: 2 lets the
  -- backend judge by the connection (see acquire.lua for the token).
  return {2, 1, held_token(KEYS[2], ARGV[4])}
end
if held then
  local kind = held_kind(held)
  if kind ~= 'exclusive' and kind ~= 'fair' then
    return {0, -1, kind}
  end
end
return {0, 0, redis.call('PTTL', KEYS[1])}
