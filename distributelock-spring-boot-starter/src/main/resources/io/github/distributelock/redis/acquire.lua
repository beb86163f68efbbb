-- Takes the lock if it is free and issues its fencing token, in one round trip.
-- KEYS[1]: the lock key; KEYS[2]: its fencing counter, in the same hash slot
-- ARGV[1]: the owner token; ARGV[2]: the lease in milliseconds;
-- ARGV[3]: how long an idle fencing counter is kept, in milliseconds
-- Returns {1, fencing token} when acquired, {0, remaining lease of the holder in ms} when not.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  -- Tokens follow the server clock in microseconds and never fall below the last token
  -- issued, so they keep growing after an idle counter has expired and been dropped.
  local now = redis.call('TIME')
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local last = tonumber(redis.call('GET', KEYS[2]))
  if last and last >= token then
    token = last + 1
  end
  redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
  return {1, token}
end
return {0, redis.call('PTTL', KEYS[1])}
