-- usage.lua: the units each client used per usage period, for the limits of a call that record usage
-- (docs/ALGORITHMS.md, "Usage"). Joined after algorithms.lua, before rate_limit.lua or settle.lua, only when a limit of
-- the call records usage (LuaScript.forLimits, LuaScript.forSettlements): a decision without usage runs a script
-- without this file, and those files then find usage_limits and record_usage nil.
--
-- After the n limits' own KEYS and ARGV, for the u limits of the call that record usage:
-- KEYS[n + 3 * (j - 1) + 1 ... + 3]  the usage sets of the j-th: of the previous, the current and the next period by
--          the application's clock (sorted sets: member a client id in clear text, score its units)
-- ARGV[#ARGV - 1 - 7 * u]  the client id, in clear text
-- ARGV[#ARGV - 7 * u + 7 * (j - 1) ...]  seven values for the j-th: the index of its limit (1 to n), the starts of five
--          consecutive periods in ms (b0 ... b4: the previous period is [b0, b1), the current [b1, b2), the next
--          [b2, b3)), and the most clients a set records
-- ARGV[#ARGV]  u
--
-- A client's units go to the set of the period that holds now (the nearest of the three when now is outside them),
-- created with ZINCRBY. A client new to the set is checked against the cap (ZCARD): at the cap its units go to the
-- OVERFLOW member instead. A new member also sets the set's TTL: until the end of the period after the set's own, so
-- that the set is read as the previous period's for a whole period. A refund (settle.lua) takes units back from the
-- set of the reservation's period, never below 0.

-- The overflow member: one byte 0xFF, which no client id's UTF-8 can be (usage_page.lua reads it so).
local OVERFLOW = '\255'

local usage_count = tonumber(ARGV[#ARGV])
local usage_limits = #KEYS - 3 * usage_count
local usage_base = #ARGV - 1 - 7 * usage_count

-- Records `units` of limit i for the call's client: added (units > 0) in the period that holds now, or taken back
-- (units < 0) in the period that holds reserved_at. A limit that records no usage records nothing.
local function record_usage(i, units, reserved_at)
  for j = 1, usage_count do
    local at = usage_base + 1 + 7 * (j - 1)
    if tonumber(ARGV[at]) == i then
      local keys = usage_limits + 3 * (j - 1)
      local client = ARGV[usage_base]
      if units > 0 then
        local key, lasts
        if now < tonumber(ARGV[at + 2]) then
          key, lasts = KEYS[keys + 1], ARGV[at + 3]
        elseif now < tonumber(ARGV[at + 3]) then
          key, lasts = KEYS[keys + 2], ARGV[at + 4]
        else
          key, lasts = KEYS[keys + 3], ARGV[at + 5]
        end
        if tonumber(redis.call('ZINCRBY', key, units, client)) == units then
          -- new to the set (or at 0 after a refund, which changes nothing here)
          if redis.call('ZCARD', key) > tonumber(ARGV[at + 6]) then
            redis.call('ZREM', key, client)
            redis.call('ZINCRBY', key, units, OVERFLOW)
          end
          redis.call('PEXPIRE', key, format('%.0f', max(tonumber(lasts) - now, 0) + TTL_MARGIN_MS))
        end
      elseif units < 0 and reserved_at >= tonumber(ARGV[at + 1]) and reserved_at < tonumber(ARGV[at + 4]) then
        local key = KEYS[keys + 3]
        if reserved_at < tonumber(ARGV[at + 2]) then
          key = KEYS[keys + 1]
        elseif reserved_at < tonumber(ARGV[at + 3]) then
          key = KEYS[keys + 2]
        end
        -- a client that is no member of its period's set had its units go to the overflow
        local member = client
        local score = redis.call('ZSCORE', key, client)
        if not score then
          member = OVERFLOW
          score = redis.call('ZSCORE', key, OVERFLOW)
        end
        if score then
          local back = math.min(-units, tonumber(score))
          if back > 0 then
            redis.call('ZINCRBY', key, -back, member)
          end
        end
      end
      return
    end
  end
end
