-- Shared by the scripts of the lock kinds other than the plain exclusive lock: prepended to
-- each of them when it is loaded (fixed text; it reads no KEYS or ARGV of its own).
--
-- The lock word is the string key lock:<key> that the plain lock and the original starter
-- take with SET NX PX. Every kind holds it while the key is held, so that a plain holder,
-- an old node included, and a holder of any kind exclude each other. Its value is the
-- owner for a plain holder, and a marker that starts with a zero byte for the other kinds:
--   \0dl:fair\0<owner>, \0dl:write\0<owner>  one holder, owner-checked
--   \0dl:read\0<owner>, \0dl:permits:<n>\0<owner>
--                                          shared, while its first holder holds it alone
--   \0dl:read, \0dl:permits:<n>              shared, its holders in {lock:<key>}:holders
--                                          from a second holder on until the last one
--                                          leaves
-- Owners never start with a zero byte (the backend refuses them), so the two never mix.

-- The server's clock, read once per script (every redis.call costs the server about a
-- microsecond beside the command): leases of waiters and of the holders in a holders set
-- are timed by it, in milliseconds, and never by a client's clock (a holder alone in the lock
-- word has the word's own expiry, as a plain holder); fencing tokens are kept above it, in
-- microseconds.
local server_time = nil
local function clock()
  if not server_time then
    server_time = redis.call('TIME')
  end
  return server_time
end

local function now_ms()
  local t = clock()
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A number as an integer in text: Lua 5.1 would write a large one as 1.7e+15.
local function n2s(x)
  return string.format('%.0f', x)
end

-- The next fencing token of the key, by the rule of acquire.lua (one above the last, never
-- below the server clock in microseconds), so that the tokens of a key grow across every kind
-- of lock taken on it, and across a failover or a restore that lost the last ones.
local function next_token(fence, idle_ms)
  local token = redis.call('INCR', fence)
  local t = clock()
  local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
  if token < micros then
    token = micros
    redis.call('SET', fence, n2s(token), 'PX', idle_ms)
  else
    redis.call('PEXPIRE', fence, idle_ms)
  end
  return token
end

-- The token of an attempt sent again (after a dropped connection) that finds the lock word
-- already holding its own unique owner: the key's counter, as nothing takes a token of a key
-- that one owner holds, or the next token if the counter idled out meanwhile.
local function held_token(fence, idle_ms)
  return tonumber(redis.call('GET', fence)) or next_token(fence, idle_ms)
end

-- The kind a lock word was written by: exclusive (a plain owner), fair, write, read or
-- permits:<n>.
local function held_kind(word)
  if string.byte(word, 1) ~= 0 then
    return 'exclusive'
  end
  return string.match(word, '^%zdl:([^%z]+)') or 'unknown'
end

-- Kinds of one family wait for each other; a key held as another family is a conflict.
-- A count of permits is a family of its own: two counts on one key would break both.
local families = { exclusive = 'exclusive', fair = 'exclusive', read = 'read/write', write = 'read/write' }
local function family(kind)
  return families[kind] or kind
end

-- Waiters whose lease ran out (they crashed, or paused past it) leave the queue, wherever
-- they are in it. Returns how many left.
local function prune_waiters(queue, leases, now)
  local dead = redis.call('ZRANGEBYSCORE', leases, '-inf', now, 'LIMIT', 0, 100)
  if #dead > 0 then
    redis.call('ZREM', queue, unpack(dead))
    redis.call('ZREM', leases, unpack(dead))
  end
  return #dead
end

-- Extends the time to live of a queue and its waiter leases to at least ms, never shortens
-- it. The two hold the same waiters and every script writes them together, so one of them
-- tells how long both live.
local function keep_queue_at_least(queue, waiters, ms)
  if redis.call('PTTL', waiters) < ms then
    redis.call('PEXPIRE', queue, ms)
    redis.call('PEXPIRE', waiters, ms)
  end
end

-- One attempt at a fair lock or a write lock, by the rule of fair-acquire.lua (which see):
-- word, fence, queue, waiters are its keys; claim, owner, lease, fence_idle, waiter_lease,
-- unique ('1' if the owner is unique to this acquisition) its arguments. Returns
-- {1, fencing token}, {0, remaining lease of the holder in ms or a negative number} or
-- {-1, kind of the holder}.
local function fair_attempt(word, fence, queue, waiters, claim, owner, lease, fence_idle, waiter_lease, unique)
  local now = now_ms()
  local held = redis.call('GET', word)
  local wait = nil
  if held == claim and unique == '1' then
    -- This attempt took the lock already, and was sent again: it must not queue behind
    -- itself. (It left the queue when it took the lock.)
    return {1, held_token(fence, fence_idle)}
  end
  if held then
    local kind = held_kind(held)
    if family(kind) ~= family(held_kind(claim)) then
      redis.call('ZREM', queue, owner)
      redis.call('ZREM', waiters, owner)
      return {-1, kind}
    end
  else
    -- Crashed waiters are pruned where they would keep a free key from its next holder:
    -- while the key is held they stay, until an attempt finds it free behind them, a
    -- hand-over passes them or a reader's attempt prunes the queue that keeps it out. An
    -- attempt that heads the queue, or finds none, has nobody to prune ahead of it.
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    if head ~= nil and head ~= owner and prune_waiters(queue, waiters, now) > 0 then
      head = redis.call('ZRANGE', queue, 0, 0)[1]
    end
    local deadline = nil
    for _ = 1, 100 do
      if head == nil or head == owner then
        break
      end
      deadline = redis.call('ZSCORE', waiters, head)
      if deadline then
        break
      end
      -- A waiter without a lease is a leftover, which no pruning would ever remove: the
      -- queue outlived its waiter leases by the millisecond between their expiries, and
      -- an arrival then kept the queue. It would hold up every waiter behind it.
      redis.call('ZREM', queue, head)
      head = redis.call('ZRANGE', queue, 0, 0)[1]
    end
    if head == nil or head == owner then
      redis.call('SET', word, claim, 'PX', lease)
      if head then
        redis.call('ZREM', queue, owner)
        redis.call('ZREM', waiters, owner)
      end
      return {1, next_token(fence, fence_idle)}
    end
    -- The key is free and another waiter heads the queue: if that waiter crashed, nothing
    -- tells the ones behind it when its lease runs out, so they attempt again then.
    wait = deadline and math.max(1, tonumber(deadline) - now + 1) or 1
  end
  -- Arrival numbers grow within the life of the queue; no client clock, no counter key. A
  -- waiter already queued keeps its place (NX).
  local last = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')[2]
  redis.call('ZADD', queue, 'NX', n2s(last and tonumber(last) + 1 or 1), owner)
  redis.call('ZADD', waiters, n2s(now + tonumber(waiter_lease)), owner)
  -- The queue outlives its longest waiter lease and no more: an abandoned queue goes away.
  keep_queue_at_least(queue, waiters, tonumber(waiter_lease))
  return {0, wait or redis.call('PTTL', word)}
end
