-- algorithms.lua: the four algorithms and the concurrency limit by the code that ARGV names them with (Algorithm.code() in Java), for
-- rate_limit.lua, peek.lua and settle.lua, which follow this file. Each returns its decide, commit and settle
-- functions (see common.lua).
local ALGORITHMS = {
  fw = fixed_window,
  sl = sliding_log,
  swc = sliding_window_counter,
  tb = token_bucket,
  cc = concurrency,
}

-- A limit's fourth value: the capacity of a rate limit (a number), the lease id of a concurrency limit (as sent).
local function capacity_or_lease(code, value)
  if code == 'cc' then
    return value
  end
  return tonumber(value)
end
