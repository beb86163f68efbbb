-- Takes the lock if it is free and issues its fencing token, in one round trip.
-- KEYS[1]: the lock key; KEYS[2]: its fencing counter, in the same hash slot
-- ARGV[1]: the owner token; ARGV[2]: the lease in milliseconds;
-- ARGV[3]: how long an idle fencing counter is kept, in milliseconds;
-- ARGV[4]: 1 if the owner token is unique to this acquisition, 0 if the caller chose it
-- Returns {1, fencing token} when acquired, {0, remaining lease of the holder in ms} when not,
-- {-1, kind of the holder} when the key is held as a read/write lock or as permits (a value
-- that starts with a zero byte, see prelude.lua), which a plain lock must not wait for.

-- The key's next token: one above the last, and never below the server clock in
-- microseconds. The counter is written with the lock and not waited for by replicas: a
-- replica promoted after a failover, or a server restored from a snapshot, may lack the
-- last tokens issued; its clock is past them (acquisitions are more than a microsecond
-- apart, and the clocks of the nodes closer than a failover takes).
local function next_token()
  local token = redis.call('INCR', KEYS[2])
  local now = redis.call('TIME')
  local clock = tonumber(now[1]) * 1000000 + tonumber(now[2])
  if token < clock then
    token = clock
    redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
  else
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
  end
  return token
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, next_token()}
end
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] and ARGV[4] == '1' then
  -- This attempt took the lock already: its client sent it again once a dropped connection
  -- was back, after it had run (an owner the caller chose may be another caller's, and is
  -- not counted). Its token is still the counter's, as nothing takes a token of a key one
  -- owner holds; the counter is gone only if it idled out meanwhile.
  return {1, tonumber(redis.call('GET', KEYS[2])) or next_token()}
end
if held and string.byte(held, 1) == 0 then
  local kind = string.match(held, '^%zdl:([^%z]+)') or 'unknown'
  if kind ~= 'fair' then
    return {-1, kind}
  end
end
return {0, redis.call('PTTL', KEYS[1])}
