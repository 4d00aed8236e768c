-- usage.lua: the units each client used per usage period, for the limits of a call that record usage
-- (docs/ALGORITHMS.md, "Usage"). Joined after algorithms.lua, before rate_limit.lua (or usage_settle.lua and
-- settle.lua), only when a limit of the call records usage (LuaScript.forLimits, LuaScript.forSettlements): a decision
-- without usage runs a script without this file, and rate_limit.lua and settle.lua then find usage_limits and
-- record_usage nil.
--
-- After the n limits' own KEYS and ARGV, for the u limits of the call that record usage:
-- KEYS[n + 3 * (j - 1) + 1 ... + 3]  the usage sets of the j-th: of the previous, the current and the next period by
--          the application's clock (sorted sets: member a client id in clear text, score its units)
-- ARGV[#ARGV - 1 - 7 * u]  the client id, in clear text
-- ARGV[#ARGV - 7 * u + 7 * (j - 1) ...]  seven values for the j-th: the index of its limit (1 to n), the starts of five
--          consecutive periods in ms, in hexadecimal (b0 ... b4: the previous period is [b0, b1), the current
--          [b1, b2), the next [b2, b3)), and the most clients a set records
-- ARGV[#ARGV]  u
--
-- A client's units go to the set of the period that holds now (the nearest of the three when now is outside them),
-- with ZINCRBY. A client new to the set is checked against the cap (ZCARD): at the cap its units go to the OVERFLOW
-- member instead. A new member also sets the set's TTL: until the end of the period after the set's own, so that the
-- set is read as the previous period's for a whole period. An existing client costs one command, and the rest of this
-- file, which runs on every decision of such a limit, converts no more than it must (docs/BENCHMARKS.md, "Usage"):
-- the bounds are hexadecimal because tonumber(s, 16) is strtoul, half the cost of the decimal's strtod.

-- The overflow member: one byte 0xFF, which no client id's UTF-8 can be (usage_page.lua reads it so).
local OVERFLOW = '\255'

local usage_count = tonumber(ARGV[#ARGV])
local usage_limits = #KEYS - 3 * usage_count
-- the client id; each limit's seven values follow it
local usage_base = #ARGV - 1 - 7 * usage_count

-- Adds `units` of limit i to the call's client in the period that holds now; nothing for a limit that records none.
-- `units` is a string of digits, as ARGV carries a cost: ZINCRBY takes it and answers the score in the same form, so
-- a client new to the set (whose score is then the units added) is found without converting either.
local function record_usage(i, units)
  -- limit i's values and its current period's key; a call of one limit needs no search: it records usage, or this
  -- file would not be in its script
  local at, k = usage_base + 1, usage_limits + 2
  if usage_limits > 1 then
    while tonumber(ARGV[at]) ~= i do
      -- the last limit's values end before ARGV's last value, u
      if at + 7 >= #ARGV then
        return
      end
      at, k = at + 7, k + 3
    end
  end
  local lasts = at + 4
  if now < tonumber(ARGV[at + 2], 16) then
    k, lasts = k - 1, at + 3
  elseif now >= tonumber(ARGV[at + 3], 16) then
    k, lasts = k + 1, at + 5
  end
  local key, client = KEYS[k], ARGV[usage_base]
  if redis.call('ZINCRBY', key, units, client) == units then
    -- new to the set (or at 0 after a refund, which changes nothing here)
    if redis.call('ZCARD', key) > tonumber(ARGV[at + 6]) then
      redis.call('ZREM', key, client)
      redis.call('ZINCRBY', key, units, OVERFLOW)
    end
    redis.call('PEXPIRE', key, format('%.0f', max(tonumber(ARGV[lasts], 16) - now, 0) + TTL_MARGIN_MS))
  end
end
