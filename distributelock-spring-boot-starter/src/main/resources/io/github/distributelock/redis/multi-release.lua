-- Deletes each lock of a multi-key request that its owner still holds, and wakes its waiters, in one round
-- trip; a lock held by another owner, or no longer held, is left as it is.
-- KEYS[i] for i in 1..n: the lock keys; KEYS[n + i]: the fencing counter of lock i, in its hash slot (on Redis
-- Cluster the caller sends only keys of one hash slot)
-- ARGV[3i-2], ARGV[3i-1], ARGV[3i]: the owner token of lock i, its release channel, and the fencing token of
-- its hold, or 0 if not known
-- Returns, for each lock in order, 1 if it was deleted, 0 if it was not this owner's, 2 if it was not and the
-- key's counter still holds this hold's token: nobody took the key since, as when the client sent this
-- release again after its first run (see RedisLockBackend and release.lua).
-- Every redis.call costs the server more than the command itself: the keys are read with one MGET and
-- deleted with one DEL; a counter is read only for a lock not found, which a release of held locks never is.
local n = #KEYS / 2
local held = redis.call('MGET', unpack(KEYS, 1, n))
local released = {}
local owned = {}
for i = 1, n do
  if held[i] == ARGV[3 * i - 2] then
    owned[#owned + 1] = KEYS[i]
    released[i] = 1
  elseif ARGV[3 * i] ~= '0' and redis.call('GET', KEYS[n + i]) == ARGV[3 * i] then
    released[i] = 2
  else
    released[i] = 0
  end
end
if #owned > 0 then
  redis.call('DEL', unpack(owned))
  for i = 1, n do
    if released[i] == 1 then
      redis.call('PUBLISH', ARGV[3 * i - 1], '1')
    end
  end
end
return released
