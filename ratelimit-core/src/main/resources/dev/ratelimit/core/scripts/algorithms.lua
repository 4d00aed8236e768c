-- algorithms.lua: the four algorithms and the concurrency limit by the code that ARGV names them with (Algorithm.code() in Java), for
-- rate_limit.lua, peek.lua and settle.lua, which follow this file.
--
-- algorithm_of(code) -> decide, commit, settle (see common.lua) of that algorithm, or nil for an unknown code.
-- The script runs again on every call, so every function defined at the top level is a closure built on every call,
-- and every local of the top level it refers to is an upvalue captured then, whether the function runs or not (about
-- 30 ns a capture in Redis' Lua, more than the closure itself). So the five algorithms take common.lua's helpers as
-- arguments, not as upvalues: only this function captures them, once, and only the algorithm a limit uses ever
-- refers to them. And a function rather than a table of the five: a table is dearer to build than one closure.
local function algorithm_of(code)
  local make
  if code == 'tb' then
    make = token_bucket
  elseif code == 'swc' then
    make = sliding_window_counter
  elseif code == 'fw' then
    make = fixed_window
  elseif code == 'sl' then
    make = sliding_log
  elseif code == 'cc' then
    make = concurrency
  else
    return nil
  end
  return make(idiv, ceil_div, nonneg, max_units, int, store, format, match, NEVER, TTL_MARGIN_MS)
end

-- A limit's fourth value: the capacity of a rate limit (a number), the lease id of a concurrency limit (as sent).
local function capacity_or_lease(code, value)
  if code == 'cc' then
    return value
  end
  return tonumber(value)
end
