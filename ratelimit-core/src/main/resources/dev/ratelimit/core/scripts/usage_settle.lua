-- usage_settle.lua: a settlement's usage (docs/ALGORITHMS.md, "Usage"), joined after usage.lua and before settle.lua
-- in the settlement script of limits that record usage (LuaScript.forSettlements). Its record_usage, which settle.lua
-- calls, takes the place of usage.lua's for the settlement: a charge (delta > 0) is added as an admission's cost is,
-- in the period that holds now; a refund (delta < 0) is taken back from the set of the period that holds reserved_at
-- (the previous, the current or the next), from the client's units, or from the overflow's for a client the set does
-- not hold (its units went there), never below 0.
local add_usage = record_usage
local function record_usage(i, delta, reserved_at)
  if delta > 0 then
    add_usage(i, format('%.0f', delta))
    return
  end
  if delta == 0 then
    return
  end
  -- limit i's values and its next period's key, as usage.lua finds them
  local at, k = usage_base + 1, usage_limits + 3
  while tonumber(ARGV[at]) ~= i do
    if at + 7 >= #ARGV then
      return
    end
    at, k = at + 7, k + 3
  end
  if reserved_at < tonumber(ARGV[at + 1], 16) or reserved_at >= tonumber(ARGV[at + 4], 16) then
    return
  end
  if reserved_at < tonumber(ARGV[at + 2], 16) then
    k = k - 2
  elseif reserved_at < tonumber(ARGV[at + 3], 16) then
    k = k - 1
  end
  local key, member = KEYS[k], ARGV[usage_base]
  local score = redis.call('ZSCORE', key, member)
  if not score then
    member = OVERFLOW
    score = redis.call('ZSCORE', key, OVERFLOW)
  end
  if score then
    local back = math.min(-delta, tonumber(score))
    if back > 0 then
      redis.call('ZINCRBY', key, format('%.0f', -back), member)
    end
  end
end
