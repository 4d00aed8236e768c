-- peek.lua: reads one client's state of one limit without consuming anything.
--
-- The script that runs is common.lua, the four algorithm files, algorithms.lua and this file, joined in that order
-- (LuaScript.peek()): the algorithms decide exactly as in rate_limit.lua, and the decision is never committed.
--
-- KEYS[1]  state key of the limit (as in rate_limit.lua)
-- ARGV[1]  now in ms since the epoch, or -1 to use the Redis server's clock
-- ARGV[2..6]  algorithm, limit, window (ms), capacity, cost, as the first five values per limit of rate_limit.lua
-- Reply    6 integers, as rate_limit.lua's per limit: whether a request of this cost would be admitted now
--          (1 or 0), remaining, retry-after ms (-1 when this cost can never be admitted), reset-after ms and
--          more-after ms of the state as it stands, and the time in ms it was read at (rate_limit.lua's sixth value)
--
-- Nothing is written: no key is created and no TTL is set or extended. The one exception is the sliding log's
-- trim of entries that no longer count (ZREMRANGEBYSCORE), which rate_limit.lua makes as well; it consumes
-- nothing and, when it empties the set, deletes the key as any decision would.

local decide = algorithm_of(ARGV[2])
if decide == nil then
  return redis.error_reply(UNKNOWN .. tostring(ARGV[2]))
end
local allowed, remaining, retry_after, reset_after, more_after, at = decide(KEYS[1], now,
  tonumber(ARGV[3]), tonumber(ARGV[4]), capacity_or_lease(ARGV[2], ARGV[5]), tonumber(ARGV[6]))
local flag = 0
if allowed then
  flag = 1
end
return { flag, max(remaining, 0), retry_after, reset_after, more_after, at }
