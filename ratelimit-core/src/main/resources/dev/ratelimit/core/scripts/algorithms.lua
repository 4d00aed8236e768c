-- algorithms.lua: the four algorithms and the concurrency limit by the code that ARGV names them with (Algorithm.code() in Java), for
-- rate_limit.lua, peek.lua and settle.lua, which follow this file. Each returns its decide, commit and settle
-- functions (see common.lua).
-- A function rather than a table: the script runs again on every call, and a table of five is dearer to build than
-- one closure (docs/BENCHMARKS.md). nil for an unknown code.
local function algorithm_of(code)
  if code == 'tb' then
    return token_bucket
  elseif code == 'swc' then
    return sliding_window_counter
  elseif code == 'fw' then
    return fixed_window
  elseif code == 'sl' then
    return sliding_log
  elseif code == 'cc' then
    return concurrency
  end
  return nil
end

-- A limit's fourth value: the capacity of a rate limit (a number), the lease id of a concurrency limit (as sent).
local function capacity_or_lease(code, value)
  if code == 'cc' then
    return value
  end
  return tonumber(value)
end
