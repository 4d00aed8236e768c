-- algorithms.lua: the four algorithms by the code that ARGV names them with (Algorithm.code() in Java), for
-- rate_limit.lua, peek.lua and settle.lua, which follow this file. Each returns its decide, commit and settle
-- functions (see common.lua).
local ALGORITHMS = {
  fw = fixed_window,
  sl = sliding_log,
  swc = sliding_window_counter,
  tb = token_bucket,
}
