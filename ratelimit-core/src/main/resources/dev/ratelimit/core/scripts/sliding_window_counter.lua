-- sliding_window_counter.lua: two fixed-window counters, the current one weighted fully and the previous
-- one by the share of it still inside the sliding window.
--
-- State (one hash per client and limit): w = index of the current window, c = its count, p = the count of
-- window w - 1. With r = now - k * W, the estimate is e = p * (W - r) / W + c, and
-- floor(e) = c + floor(p * (W - r) / W) is computed in exact integers. Admit iff floor(e) + cost <= limit.
-- The hash lives until the end of window k + 1 (plus TTL_MARGIN_MS), while its count is still readable as the
-- previous one.
-- A request whose clock is behind the stored window is decided at the start of the stored window ("at");
-- TTLs are counted from the request's own time, so the hash still lives until the end of window k + 1.
-- Known property: slight overshoot against an exact sliding window.

-- The smallest wait t >= 0 after which a request of cost c <= limit is admitted, with counts cur and prev at
-- offset r of the current window. The estimate only falls as time passes, so the first admitting t is found
-- in closed form. Still in this window: p * (W - r - t) <= a * W - 1 with a = limit - cur - c + 1. Otherwise
-- in window k + 1, where cur is the previous count and the current one is 0: cur * (W - r') <= b * W - 1
-- with b = limit - c + 1, at t = W - r + r'.
local function swc_wait(limit, window, r, cur, prev, c)
  if cur + idiv(prev * (window - r), window) + c <= limit then
    return 0
  end
  local a = limit - cur - c + 1
  if a >= 1 and prev > 0 then
    local t = window - r - idiv(a * window - 1, prev)
    if t < 1 then
      t = 1
    end
    if t < window - r then
      return t
    end
  end
  local r_next = 0
  if cur > 0 then
    r_next = nonneg(window - idiv((limit - c + 1) * window - 1, cur))
  end
  return window - r + r_next
end

local function sliding_window_counter(key, now, limit, window, capacity, cost)
  local at = now
  local k = idiv(at, window)
  local state = redis.call('HMGET', key, 'w', 'c', 'p')
  local w = tonumber(state[1])
  local cur, prev = 0, 0
  if w ~= nil then
    if w > k then
      k = w
      at = w * window
    end
    if w == k then
      cur, prev = tonumber(state[2]), tonumber(state[3])
    elseif w == k - 1 then
      prev = tonumber(state[2])
    end
  end
  local r = at - k * window
  local function estimate(n)
    return n + idiv(prev * (window - r), window)
  end
  -- Full allowance is floor(e) = 0: the wait for a request of cost limit.
  local function reset_after(n)
    return swc_wait(limit, window, r, n, prev, limit)
  end
  local function more(n)
    return more_after(limit - estimate(n), limit, function(c) return swc_wait(limit, window, r, n, prev, c) end)
  end
  if cost > limit then
    return denied(limit - estimate(cur), NEVER, reset_after(cur), more(cur))
  end
  if estimate(cur) + cost > limit then
    return denied(limit - estimate(cur), swc_wait(limit, window, r, cur, prev, cost), reset_after(cur), more(cur))
  end
  return allowed(limit - estimate(cur), reset_after(cur), more(cur), function()
    local n = cur + cost
    redis.call('HSET', key, 'w', int(k), 'c', int(n), 'p', int(prev))
    redis.call('PEXPIRE', key, int((k + 2) * window - now + TTL_MARGIN_MS))
    return limit - estimate(n), reset_after(n), more(n)
  end)
end

