-- common.lua: arithmetic and conventions shared by the four algorithm scripts.
--
-- Everything here is exact integer arithmetic on Lua numbers (doubles): every value stays below 2^53,
-- which LimitDefinition guarantees before a script is ever called. Plain a / b is not enough: for large
-- operands the rounded quotient can land on the next integer, so idiv corrects it.
--
-- Each algorithm is three functions, listed by algorithms.lua:
--   decide(key, now, limit, window, capacity, cost, committing)
--     -> allowed, remaining, retry_after, reset_after, more_after, at, s1, s2, s3, s4
--   commit(key, now, limit, window, capacity, cost, s1, s2, s3, s4) -> remaining, reset_after, more_after
--   settle(key, now, limit, window, capacity, delta, reserved_at) -> remaining, reset_after, more_after, at
-- decide reads the state and writes nothing; remaining, reset_after and more_after describe the state as it stands
-- without this request, retry_after is 0 when allowed and NEVER when the cost can never fit, at is the time the
-- decision is taken at (now, or the stored time when now is earlier), and s1 ... s4 are what commit needs to write
-- the request (only when allowed). With committing true, an admitting decide may leave remaining, reset_after and
-- more_after nil: its caller commits at once and replies with commit's (rate_limit.lua's single limit), so the state
-- is not described twice; the token bucket and the sliding window counter skip that work. commit writes the request
-- and returns the three after it. settle charges delta units (delta > 0, even beyond the limit) or gives -delta back
-- of those reserved at reserved_at (delta < 0), as docs/ALGORITHMS.md ("Settling a reservation") specifies, and
-- returns the fields after it.
-- more_after is the wait until remaining grows: until a request of cost remaining + 1 would be admitted; 0 when the
-- allowance is full.
-- They pass plain values rather than tables or closures: the whole script runs again on every call, and what it
-- allocates is most of its cost after the Redis commands themselves (see docs/BENCHMARKS.md).

local floor = math.floor
local format = string.format
local match = string.match

-- floor(a / b) for integers a and b > 0, exact for |a| < 2^53.
local function idiv(a, b)
  local q = floor(a / b)
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

-- A number as Redis should store it: all digits, never an exponent (tostring would write 1e+15). Not '%d', which is
-- cheaper but converts through a C long: 32 bits on a 32-bit build of Redis, where a time in ms would overflow. A
-- state of several numbers is written with one format('%.0f %.0f', ...) rather than int() .. ' ' .. int(): one call
-- and one string instead of three.
local function int(n)
  return format('%.0f', n)
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

local NEVER = -1

-- The most units a settled charge may leave in a state (debt beyond this is dropped): (n + 1) x W stays below 2^52,
-- the bound LimitDefinition keeps every configured number under, so the arithmetic stays exact.
local function max_units(window)
  return idiv(4503599627370496, window) - 1
end

-- The token bucket, the fixed window and the sliding window counter keep their state in one string of integers
-- separated by spaces, written with its TTL in one command (SET ... PX), so a state can never be left without one.
-- A string is the most compact value Redis has for a few numbers (see docs/BENCHMARKS.md). A value that does not
-- parse reads as no state.
local function store(key, value, ttl)
  redis.call('SET', key, value, 'PX', int(ttl))
end
