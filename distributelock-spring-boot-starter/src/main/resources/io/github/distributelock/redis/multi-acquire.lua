-- Takes every lock of a multi-key request, or none of them, and issues each one's fencing token, in one
-- round trip. The script runs atomically: no other command sees some of the locks taken and not the others.
-- KEYS: for each lock i, its key KEYS[2i-1] and its fencing counter KEYS[2i] (on Redis Cluster the caller
-- sends only keys of one hash slot)
-- ARGV[1]: how long an idle fencing counter is kept, in milliseconds;
-- ARGV[2i], ARGV[2i+1]: the owner token of lock i and its lease in milliseconds
-- Returns {1, token of lock 1, token of lock 2, ...} when every lock was free and is now taken. Otherwise
-- takes none, and answers for the first lock that is held what acquire.lua would answer for it alone:
-- {0, i, remaining lease of its holder in ms}, or {-1, i, kind of the holder} when it is held as a
-- read/write lock or as permits, which a plain lock must not wait for.
-- Each lock is taken as acquire.lua takes it (SET PX of the owner), and its token is drawn by the same rule
-- from the same counter, so a key's tokens grow across single-key and multi-key acquisitions.
-- Every redis.call costs the server more than the command itself: the lock keys are read with one MGET.
local count = #KEYS / 2
local locks = {}
for i = 1, count do
  locks[i] = KEYS[2 * i - 1]
end
local held = redis.call('MGET', unpack(locks))
for i = 1, count do
  local holder = held[i]
  if holder then
    if string.byte(holder, 1) == 0 then
      local kind = string.match(holder, '^%zdl:([^%z]+)') or 'unknown'
      if kind ~= 'fair' then
        return {-1, i, kind}
      end
    end
    return {0, i, redis.call('PTTL', locks[i])}
  end
end
local reply = {1}
for i = 1, count do
  redis.call('SET', locks[i], ARGV[2 * i], 'PX', ARGV[2 * i + 1])
  local fence = KEYS[2 * i]
  local token = redis.call('INCR', fence)
  if token == 1 then
    -- A new counter: seeded from the server clock in microseconds, as acquire.lua explains.
    local now = redis.call('TIME')
    token = tonumber(now[1]) * 1000000 + tonumber(now[2])
    redis.call('SET', fence, string.format('%.0f', token), 'PX', ARGV[1])
  else
    redis.call('PEXPIRE', fence, ARGV[1])
  end
  reply[i + 1] = token
end
return reply
