-- fixed_window.lua: one counter per client per window k = floor(now / W).
--
-- State (one hash per client and limit): w = index of the window counted, c = units admitted in it.
-- Admit iff c + cost <= limit. The hash expires at the end of its window (plus TTL_MARGIN_MS).
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
  -- Wait until a request of cost c fits, with n units counted: the next window.
  local function wait(n, c)
    if n + c <= limit then
      return 0
    end
    return window_end - at
  end
  local function reset_after(n)
    return wait(n, limit)
  end
  local function more(n)
    return more_after(limit - n, limit, function(c) return wait(n, c) end)
  end
  if cost > limit then
    return denied(limit - count, NEVER, reset_after(count), more(count))
  end
  if count + cost > limit then
    return denied(limit - count, wait(count, cost), reset_after(count), more(count))
  end
  return allowed(limit - count, reset_after(count), more(count), function()
    local n = count + cost
    redis.call('HSET', key, 'w', int(k), 'c', int(n))
    redis.call('PEXPIRE', key, int(window_end - now + TTL_MARGIN_MS))
    return limit - n, reset_after(n), more(n)
  end)
end

