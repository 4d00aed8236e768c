-- common.lua: arithmetic shared by the four algorithm scripts.
--
-- Everything here is exact integer arithmetic on Lua numbers (doubles): every value stays below 2^53,
-- which LimitDefinition guarantees before a script is ever called. Plain a / b is not enough: for large
-- operands the rounded quotient can land on the next integer, so idiv corrects it.

-- floor(a / b) for integers a and b > 0, exact for |a| < 2^53.
local function idiv(a, b)
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then
    q = q - 1
  elseif r >= b then
    q = q + 1
  end
  return q
end

-- The request's time in ms: ARGV's explicit time, or the Redis server's clock (TIME, truncated to ms) when it is
-- negative.
local function request_time(arg)
  local now = tonumber(arg)
  if now < 0 then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + idiv(tonumber(time[2]), 1000)
  end
  return now
end

-- ceil(a / b) for integers a >= 0 and b > 0.
local function ceil_div(a, b)
  return idiv(a + b - 1, b)
end

-- A number as Redis should store it: all digits, never an exponent (tostring would write 1e+15).
local function int(n)
  return string.format('%.0f', n)
end

-- Every TTL is the time the algorithm needs the state, plus this margin. The state itself tells a stale window
-- from a current one, so living longer is harmless; living shorter would forget admitted units whenever the
-- caller's clock runs ahead of Redis' own (clock skew between application servers, or explicit time in a
-- simulation, which runs many simulated seconds in one real one).
local TTL_MARGIN_MS = 1000

local function nonneg(n)
  if n < 0 then
    return 0
  end
  return n
end

-- The decision of one limit. remaining, reset_after and more_after describe the state as it stands without
-- this request; commit (nil when denied) writes the request and returns the three after it.
-- more_after is the wait until remaining grows: until a request of cost remaining + 1 would be admitted,
-- computed by the algorithm's own wait(cost) function; 0 when the allowance is full.
local NEVER = -1
local function denied(remaining, retry_after, reset_after, more_after)
  return { allowed = false, remaining = nonneg(remaining), retry_after = retry_after, reset_after = reset_after,
    more_after = more_after }
end
local function allowed(remaining, reset_after, more_after, commit)
  return { allowed = true, remaining = nonneg(remaining), retry_after = 0, reset_after = reset_after,
    more_after = more_after, commit = commit }
end
local function more_after(remaining, bound, wait)
  if remaining >= bound then
    return 0
  end
  return wait(nonneg(remaining) + 1)
end
