-- settle.lua: settles reservations of one client: charges what their calls used beyond their provisional cost, or
-- gives back what they did not use (docs/ALGORITHMS.md, "Settling a reservation"). Never denies.
--
-- The script that runs is common.lua, the four algorithm files, algorithms.lua (and usage.lua and usage_settle.lua
-- when a limit records usage) and this file, joined in that order (LuaScript.settle(), LuaScript.forSettlements).
--
-- KEYS[i]  state key of limit i (as in rate_limit.lua; all share the client's hash tag)
-- ARGV[1]  now in ms since the epoch, or -1 to use the Redis server's clock
-- ARGV[2 + 7 * (i - 1) ...]  seven values for limit i: algorithm, limit, window (ms), capacity (the lease id for
--          concurrency, whose settlement of an actual cost 0 gives the lease back), the reserved cost,
--          the actual cost (units, >= 0), and the time in ms the reservation was decided at (rate_limit.lua's sixth
--          value)
-- Reply    6 integers per limit, as rate_limit.lua's: 1, remaining, 0, reset-after ms, more-after ms of the state
--          after the settlement, and the time in ms it was settled at
--
-- A charge goes into debt rather than fail (the call has run); a refund gives back only units that still count.
-- Every key written keeps a relative TTL set in the same command; a settlement that changes nothing writes nothing.

-- Limits that record usage add KEYS and ARGV after the limits' (usage.lua and usage_settle.lua, joined before this file
-- only then): there, usage_limits is the number of limits and record_usage records each settlement's charge or
-- refund; both are nil otherwise.
local reply = {}
for i = 1, usage_limits or #KEYS do
  local at = 2 + 7 * (i - 1)
  local _, _, settle = algorithm_of(ARGV[at], true)
  if settle == nil then
    return redis.error_reply(UNKNOWN .. tostring(ARGV[at]))
  end
  local delta = tonumber(ARGV[at + 5]) - tonumber(ARGV[at + 4])
  local remaining, reset_after, more_after, settled_at = settle(KEYS[i], now, tonumber(ARGV[at + 1]),
    tonumber(ARGV[at + 2]), capacity_or_lease(ARGV[at], ARGV[at + 3]), delta, tonumber(ARGV[at + 6]))
  if record_usage then
    record_usage(i, delta, tonumber(ARGV[at + 6]))
  end
  reply[#reply + 1] = 1
  reply[#reply + 1] = max(remaining, 0)
  reply[#reply + 1] = 0
  reply[#reply + 1] = reset_after
  reply[#reply + 1] = more_after
  reply[#reply + 1] = settled_at
end
return reply
