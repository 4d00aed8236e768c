-- algorithms.lua: the four algorithms, the concurrency limit and the fixed window of calendar periods by the code
-- that ARGV names them with (LimitDefinition.scriptCode() in Java), for
-- rate_limit.lua, peek.lua and settle.lua, which follow this file.
--
-- algorithm_of(code, settling) -> decide and commit, or nil, nil, settle with settling true (see common.lua), of that
-- algorithm, or nil for an unknown code (answered with UNKNOWN, below). A decision's script holds only the algorithms
-- its limits use (LuaScript.rateLimit(algorithms)): the others are declared nil before this file, and their codes
-- answered as unknown.
-- A function rather than a table of the five: the script runs again on every call, and a table is dearer to build
-- than one closure. (Passing common.lua's helpers to the algorithms as arguments, so that the unused algorithms'
-- closures capture no upvalues, measured no faster: the used one's functions then capture them instead.)
local function algorithm_of(code, settling)
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
  elseif code == 'fc' then
    make = calendar_window
  end
  if make == nil then
    return nil
  end
  return make(settling)
end

-- A limit's fourth value: the capacity of a rate limit (a number), the lease id of a concurrency limit and the
-- periods' bounds of a calendar window (as sent).
local function capacity_or_lease(code, value)
  if code == 'cc' or code == 'fc' then
    return value
  end
  return tonumber(value)
end

-- The error a code algorithm_of does not know is answered with: redis.error_reply(UNKNOWN .. tostring(code)).
local UNKNOWN = 'ERR unknown rate-limit algorithm '
