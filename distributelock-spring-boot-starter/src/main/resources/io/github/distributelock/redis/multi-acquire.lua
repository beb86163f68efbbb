-- Takes every lock of a multi-key request, or none of them, and issues each one's fencing token, in one
-- round trip. The script runs atomically: no other command sees some of the locks taken and not the others.
-- KEYS: for each lock i, its key KEYS[2i-1] and its fencing counter KEYS[2i] (on Redis Cluster the caller
-- sends only keys of one hash slot)
-- ARGV[1]: how long an idle fencing counter is kept, in milliseconds;
-- ARGV[3i-1], ARGV[3i], ARGV[3i+1]: the owner token of lock i, its lease in milliseconds, and 1 if the
-- owner is unique to this acquisition, 0 if the caller chose it
-- Returns {1, token of lock 1, token of lock 2, ...} when every lock was free (or already its own, below)
-- and is now taken. Otherwise takes none, and answers for the first lock that is held what acquire.lua
-- would answer for it alone: {0, i, remaining lease of its holder in ms}, or {-1, i, kind of the holder}
-- when it is held as a read/write lock or as permits, which a plain lock must not wait for.
-- Each lock is taken as acquire.lua takes it (SET NX PX of the owner), and its token is drawn by the same
-- rule from the same counter, so a key's tokens grow across single-key and multi-key acquisitions.
-- Every redis.call costs the server about a microsecond beside the command itself, so the locks are not read
-- first: each is set if free, and if one is held, the ones set before it are deleted again, which nothing
-- can see in between, as the script runs alone.
-- A lock held by its own unique owner was taken by this attempt already, which its client sent again
-- once a dropped connection was back; it counts as taken, with the token it took (see acquire.lua).
local count = #KEYS / 2
local own = nil
for i = 1, count do
  local lock = KEYS[2 * i - 1]
  local owner = ARGV[3 * i - 1]
  if not redis.call('SET', lock, owner, 'NX', 'PX', ARGV[3 * i]) then
    local holder = redis.call('GET', lock)
    if holder == owner and ARGV[3 * i + 1] == '1' then
      own = own or {}
      own[i] = true
    else
      -- Nothing is kept when the attempt fails, not even a lock of its own from before.
      for j = 1, i - 1 do
        redis.call('DEL', KEYS[2 * j - 1])
      end
      if holder and string.byte(holder, 1) == 0 then
        local kind = string.match(holder, '^%zdl:([^%z]+)') or 'unknown'
        if kind ~= 'fair' then
          return {-1, i, kind}
        end
      end
      return {0, i, redis.call('PTTL', lock)}
    end
  end
end
local reply = {1}
-- The clock is read once: the tokens of the keys need not differ from each other, only each from its
-- key's last one; written as text once, as it is the token of every key whose counter is behind it.
local now = redis.call('TIME')
local clock = tonumber(now[1]) * 1000000 + tonumber(now[2])
local clock_text = nil
for i = 1, count do
  local fence = KEYS[2 * i]
  local token = own and own[i] and tonumber(redis.call('GET', fence))
  if not token then
    -- One above the last, never below the server clock in microseconds, as acquire.lua explains.
    token = redis.call('INCR', fence)
    if token < clock then
      token = clock
      clock_text = clock_text or string.format('%.0f', clock)
      redis.call('SET', fence, clock_text, 'PX', ARGV[1])
    else
      redis.call('PEXPIRE', fence, ARGV[1])
    end
  end
  reply[i + 1] = token
end
return reply
