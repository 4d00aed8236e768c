-- fixed_window.lua: one counter per client per window k = floor(now / W).
--
-- State (one hash per client and limit): w = index of the window counted, c = units admitted in it.
-- Admit iff c + cost <= limit. The hash expires at the end of its window.
-- A request whose clock is behind the stored window (k < w) is decided at the start of the stored window
-- ("at"): time never goes backwards, so a lagging clock cannot reopen an old, emptier window. TTLs are counted
-- from the request's own time, so the key still lives until the stored window ends.
-- Known property: a client straddling a boundary gets up to 2 x limit within a short span.
local function fixed_window(key, now, limit, window, capacity, cost)
  local at = now
  local k = idiv(at, window)
  local state = redis.call('HMGET', key, 'w', 'c')
  local w, count = tonumber(state[1]), tonumber(state[2]) or 0
  if w == nil then
    count = 0
  elseif w > k then
    k = w
    at = w * window
  elseif w < k then
    count = 0
  end
  local window_end = (k + 1) * window
  local reset_after = 0
  if count > 0 then
    reset_after = window_end - at
  end
  if cost > limit then
    return denied(limit - count, NEVER, reset_after)
  end
  if count + cost > limit then
    return denied(limit - count, window_end - at, reset_after)
  end
  return allowed(limit - count, reset_after, function()
    redis.call('HSET', key, 'w', int(k), 'c', int(count + cost))
    redis.call('PEXPIRE', key, int(window_end - now + TTL_MARGIN_MS))
    return limit - count - cost, window_end - at
  end)
end

