-- Releases a read lock or a permit if this owner holds it and its lease has not run out. A
-- holder alone in the lock word deletes it. Of the holders set, the lock word then lives as
-- long as the latest remaining holder's lease, and is deleted with the last holder. Wakes the
-- waiters when the last holder left, and, with ARGV[4] = 1 (permits), at every release, since
-- each frees a place.
-- KEYS[1]: the lock word; KEYS[2]: the holders; KEYS[3]: the fencing counter
-- ARGV[1]: the marker of this kind; ARGV[2]: the owner; ARGV[3]: the release channel;
-- ARGV[4]: 1 to wake the waiters at every release; ARGV[5]: the fencing token of the hold,
-- or 0 if not known
-- Returns 1 if this owner held it, 0 if not, 2 if not and the key's counter still holds this
-- hold's token: nobody took the key since, not even another holder (each takes a token), as
-- when the client sent this release again after its first run (see release.lua).
local function not_held()
  if ARGV[5] ~= '0' and redis.call('GET', KEYS[3]) == ARGV[5] then
    return 2
  end
  return 0
end
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] .. '\0' .. ARGV[2] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[3], '1')
  return 1
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
return 1
