-- Deletes each lock of a multi-key request that its owner still holds, and wakes its waiters, in one round
-- trip; a lock held by another owner, or no longer held, is left as it is.
-- KEYS: the lock keys (on Redis Cluster the caller sends only keys of one hash slot)
-- ARGV[2i-1], ARGV[2i]: the owner token of lock i and its release channel
-- Returns, for each lock in order, 1 if it was deleted, 0 if it was not this owner's.
-- Every redis.call costs the server more than the command itself: the keys are read with one MGET and
-- deleted with one DEL.
local held = redis.call('MGET', unpack(KEYS))
local released = {}
local owned = {}
for i = 1, #KEYS do
  if held[i] == ARGV[2 * i - 1] then
    owned[#owned + 1] = KEYS[i]
    released[i] = 1
  else
    released[i] = 0
  end
end
if #owned > 0 then
  redis.call('DEL', unpack(owned))
  for i = 1, #KEYS do
    if released[i] == 1 then
      redis.call('PUBLISH', ARGV[2 * i], '1')
    end
  end
end
return released
