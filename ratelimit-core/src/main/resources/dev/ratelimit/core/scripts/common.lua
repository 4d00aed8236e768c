-- common.lua: arithmetic and conventions shared by the four algorithm scripts.
--
-- Everything here is exact integer arithmetic on Lua numbers (doubles): every value stays below 2^53,
-- which LimitDefinition guarantees before a script is ever called. Plain a / b is not enough: for large
-- operands the rounded quotient can land on the next integer, so idiv corrects it.
--
-- Each algorithm is three functions, made by its file's function of one argument, settling (algorithms.lua lists
-- them): decide and commit when settling is false, settle alone when it is true.
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
-- allocates is most of its cost after the Redis commands themselves (see docs/BENCHMARKS.md). Every function a
-- script defines is made again on every call too (a closure, about 0.03 us, 0.06 us with upvalues): the scripts make
-- only those the call runs, and helpers of one line are written where they are used.

local floor = math.floor
local format = string.format
local match = string.match
-- max(n, 0) where a count must not show below 0: a library function, so nothing is made per call for it.
local max = math.max

-- floor(a / b) for integers a and b > 0, exact for |a| < 2^53. ceil(a / b) is idiv(a + b - 1, b) for a >= 0.
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

-- The request's time in ms, which every script joining this file takes as ARGV[1]: the caller's explicit time, or
-- the Redis server's clock (TIME, truncated to ms) when it is negative.
local now = tonumber(ARGV[1])
if now < 0 then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

-- Every TTL is the time the algorithm needs the state, plus this margin. The state itself tells a stale window
-- from a current one, so living longer is harmless; living shorter would forget admitted units whenever the
-- caller's clock runs ahead of Redis' own (clock skew between application servers, or explicit time in a
-- simulation, which runs many simulated seconds in one real one).
local TTL_MARGIN_MS = 1000

local NEVER = -1

-- The most units a settled charge may leave in a state (debt beyond this is dropped) is idiv(MAX_SCALED, W) - 1:
-- (n + 1) x W stays below 2^52, the bound LimitDefinition keeps every configured number under, so the arithmetic
-- stays exact.
local MAX_SCALED = 4503599627370496

-- Numbers are written as Redis should store them with format('%.0f', n): all digits, never an exponent (tostring
-- would write 1e+15). Not '%d', which is cheaper but converts through a C long: 32 bits on a 32-bit build of Redis,
-- where a time in ms would overflow. A state of several numbers is written with one format('%.0f %.0f', ...): one
-- call and one string.

-- The token bucket, the fixed window and the sliding window counter keep their state in one string of integers
-- separated by spaces, written with its TTL in one command (SET ... PX), so a state can never be left without one.
-- A string is the most compact value Redis has for a few numbers (see docs/BENCHMARKS.md). A value that does not
-- parse reads as no state.
local function store(key, value, ttl)
  redis.call('SET', key, value, 'PX', format('%.0f', ttl))
end
