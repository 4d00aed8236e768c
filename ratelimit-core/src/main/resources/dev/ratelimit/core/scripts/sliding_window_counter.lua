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

-- ms from r (offset in the current window) until floor(e) = 0, for counts cur and prev.
local function swc_reset_after(cur, prev, r, window)
  if cur > 0 then
    -- in window k + 1 cur becomes the previous count: need cur * (W - r') <= W - 1
    return window - r + window - idiv(window - 1, cur)
  end
  if prev > 0 then
    return nonneg(window - r - idiv(window - 1, prev))
  end
  return 0
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
  local estimate = cur + idiv(prev * (window - r), window)
  local reset_after = swc_reset_after(cur, prev, r, window)
  if cost > limit then
    return denied(limit - estimate, NEVER, reset_after)
  end
  if estimate + cost > limit then
    -- Smallest t with an admitting estimate. Still in this window: p * (W - r - t) <= a * W - 1 with
    -- a = limit - cur - cost + 1. Otherwise in window k + 1, where cur is the previous count and the
    -- current one is 0: cur * (W - r') <= b * W - 1 with b = limit - cost + 1, at t = W - r + r'.
    local retry_after
    local a = limit - cur - cost + 1
    if a >= 1 and prev > 0 then
      local t = window - r - idiv(a * window - 1, prev)
      if t < 1 then
        t = 1
      end
      if t < window - r then
        retry_after = t
      end
    end
    if retry_after == nil then
      local r_next = 0
      if cur > 0 then
        r_next = nonneg(window - idiv((limit - cost + 1) * window - 1, cur))
      end
      retry_after = window - r + r_next
    end
    return denied(limit - estimate, retry_after, reset_after)
  end
  return allowed(limit - estimate, reset_after, function()
    redis.call('HSET', key, 'w', int(k), 'c', int(cur + cost), 'p', int(prev))
    redis.call('PEXPIRE', key, int((k + 2) * window - now + TTL_MARGIN_MS))
    return limit - estimate - cost, swc_reset_after(cur + cost, prev, r, window)
  end)
end

