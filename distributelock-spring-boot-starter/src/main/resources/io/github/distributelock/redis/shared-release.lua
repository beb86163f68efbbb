-- Releases a read lock or a permit if this owner holds it and its lease has not run out. A
-- holder alone in the lock word deletes it. Of the holders set, the lock word then lives as
-- long as the latest remaining holder's lease, and is deleted with the last holder. Wakes the
-- waiters when the last holder left, and, with ARGV[4] = 1 (permits), at every release, since
-- each frees a place.
-- A hold released is remembered in the key's recent releases (its fencing token and owner), so
-- that a run of the same release that finds the holder gone can tell its own earlier run from a
-- loss. Neither the key's counter (other holders take tokens of the key, before this release
-- and after it) nor the holders (a lease that ran out and a release leave them alike) can tell.
-- Only the key's last 128 to 160 releases are kept, for ARGV[6] ms after the last one: a time
-- window would keep every release of a busy key. A list, pushed at one end and trimmed at the
-- other once every 32 releases, needs no clock and no look-up to write (each redis.call costs the
-- server about a microsecond more); it is searched only by a release that finds its holder gone.
-- KEYS[1]: the lock word; KEYS[2]: the holders; KEYS[3]: the recent releases (list of
-- token \0 owner, newest first)
-- ARGV[1]: the marker of this kind; ARGV[2]: the owner; ARGV[3]: the release channel;
-- ARGV[4]: 1 to wake the waiters at every release; ARGV[5]: the fencing token of the hold,
-- or 0 if not known (then nothing is remembered); ARGV[6]: how long the recent releases are
-- kept after the last one, in ms
-- Returns 1 if this owner held it, or if this hold's release ran already (as when the client
-- sent it again after its first run, see RedisLockBackend), 0 if not.
local released = ARGV[5] .. '\0' .. ARGV[2]
local function remember()
  if ARGV[5] ~= '0' then
    if redis.call('LPUSH', KEYS[3], released) > 160 then
      redis.call('LTRIM', KEYS[3], 0, 127)
    end
    redis.call('PEXPIRE', KEYS[3], ARGV[6])
  end
  return 1
end
-- Searched here rather than with LPOS, which Redis before 6.0.6 lacks.
local function not_held()
  if ARGV[5] ~= '0' then
    for _, earlier in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
      if earlier == released then
        return 1
      end
    end
  end
  return 0
end
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] .. '\0' .. ARGV[2] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[3], '1')
  return remember()
end
if held ~= ARGV[1] then
  return not_held()
end
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZREM', KEYS[2], ARGV[2]) == 0 then
  return not_held()
end
local latest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]
if latest then
  local px = tonumber(latest) - now
  redis.call('PEXPIRE', KEYS[1], px)
  redis.call('PEXPIRE', KEYS[2], px)
else
  redis.call('DEL', KEYS[1])
end
if not latest or ARGV[4] == '1' then
  redis.call('PUBLISH', ARGV[3], '1')
end
return remember()
