-- Releases a fair lock or a write lock if this owner holds it, and leaves the queue if the
-- claim waits in it (a waiter that gives up); wakes the waiters either way, so that the
-- next one in line attempts at once.
-- KEYS[1]: the lock word; KEYS[2]: the queue; KEYS[3]: the waiter leases; KEYS[4]: the fencing
-- counter
-- ARGV[1]: the lock word value of this claim; ARGV[2]: the owner; ARGV[3]: the release channel;
-- ARGV[4]: the fencing token of the hold, or 0 if not known (a waiter)
-- Returns 1 if the lock was released, 0 if this owner did not hold it, 2 if it did not and the
-- key's counter still holds this hold's token (see release.lua).
-- A holder is never in the queue (it leaves it as it takes the lock), so a release by the
-- holder touches the queue not at all.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[3], '1')
  return 1
end
local waited = redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
if waited == 1 then
  redis.call('PUBLISH', ARGV[3], '1')
end
if ARGV[4] ~= '0' and redis.call('GET', KEYS[4]) == ARGV[4] then
  return 2
end
return 0
