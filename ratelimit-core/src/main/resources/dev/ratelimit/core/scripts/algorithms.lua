-- algorithms.lua: the four algorithms by the code that ARGV names them with (Algorithm.code() in Java), for
-- rate_limit.lua and peek.lua, which follow this file. Each returns its decide and commit functions (see common.lua).
local ALGORITHMS = {
  fw = fixed_window,
  sl = sliding_log,
  swc = sliding_window_counter,
  tb = token_bucket,
}
