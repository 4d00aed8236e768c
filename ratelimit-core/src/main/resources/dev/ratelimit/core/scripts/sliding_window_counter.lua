-- sliding_window_counter.lua: two fixed-window counters, the current one weighted fully and the previous
-- one by the share of it still inside the sliding window.
--
-- State (one string per client and limit): "<w> <c> <p>", w = index of the current window, c = its count, p = the
-- count of window w - 1. With r = now - k * W, the estimate is e = p * (W - r) / W + c, and
-- floor(e) = c + floor(p * (W - r) / W) is computed in exact integers. Admit iff floor(e) + cost <= limit.
-- The state lives until the end of window k + 1 (plus TTL_MARGIN_MS), while its count is still readable as the
-- previous one.
-- A request whose clock is behind the stored window is decided at the start of the stored window ("at");
-- TTLs are counted from the request's own time, so the state still lives until the end of window k + 1.
-- Known property: slight overshoot against an exact sliding window.
-- Makes this algorithm's decide and commit, or its settle (see common.lua): only the algorithms a call uses are made.
local function sliding_window_counter(settling)
  -- The smallest wait t >= 0 after which a request of cost c <= limit is admitted, with counts cur and prev at
  -- offset r of the current window. The estimate only falls as time passes, so the first admitting t is found
  -- in closed form. Still in this window: p * (W - r - t) <= a * W - 1 with a = limit - cur - c + 1. Otherwise
  -- in window k + 1, where cur is the previous count and the current one is 0: cur * (W - r') <= b * W - 1
  -- with b = limit - c + 1, at t = W - r + r'.
  local function wait(limit, window, r, cur, prev, c)
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
      r_next = max(window - idiv((limit - c + 1) * window - 1, cur), 0)
    end
    return window - r + r_next
  end

  -- remaining (limit - floor(e), not clamped), reset-after (the wait for a request of cost limit: floor(e) = 0) and
  -- more-after with counts cur and prev at offset r.
  local function fields(cur, prev, r, limit, window)
    local remaining = limit - cur - idiv(prev * (window - r), window)
    local more_after = 0
    if remaining < limit then
      more_after = wait(limit, window, r, cur, prev, max(remaining, 0) + 1)
    end
    return remaining, wait(limit, window, r, cur, prev, limit), more_after
  end

  -- The current and previous counts of the window the request is decided in, its index k, and `at`.
  local function load(key, now, window)
    local at = now
    local k = idiv(at, window)
    local cur, prev = 0, 0
    local state = redis.call('GET', key)
    if state then
      local w, c, p = match(state, '^(%d+) (%d+) (%d+)$')
      w, c, p = tonumber(w), tonumber(c), tonumber(p)
      if w ~= nil and c ~= nil and p ~= nil then
        if w > k then
          k = w
          at = w * window
        end
        if w == k then
          cur, prev = c, p
        elseif w == k - 1 then
          prev = c
        end
      end
    end
    return cur, prev, k, at
  end

  if settling then
    -- A charge counts in the current window, even beyond the limit; a refund in the reservation's window while it is
    -- the current or the previous one.
    local function settle(key, now, limit, window, capacity, delta, reserved_at)
      local cur, prev, k, at = load(key, now, window)
      local c, p = cur, prev
      if delta > 0 then
        c = math.min(cur + delta, idiv(MAX_SCALED, window) - 1)
      elseif delta < 0 then
        local reserved = idiv(reserved_at, window)
        if reserved == k then
          c = max(cur + delta, 0)
        elseif reserved == k - 1 then
          p = max(prev + delta, 0)
        end
      end
      if c ~= cur or p ~= prev then
        store(key, format('%.0f %.0f %.0f', k, c, p), (k + 2) * window - now + TTL_MARGIN_MS)
      end
      local remaining, reset_after, more_after = fields(c, p, at - k * window, limit, window)
      return remaining, reset_after, more_after, at
    end
    return nil, nil, settle
  end

  local function decide(key, now, limit, window, capacity, cost, committing)
    local cur, prev, k, at = load(key, now, window)
    local r = at - k * window
    if committing and cost <= limit and cur + idiv(prev * (window - r), window) + cost <= limit then
      return true, nil, 0, nil, nil, at, cur, prev, k, at
    end
    local remaining, reset_after, more_after = fields(cur, prev, r, limit, window)
    if cost > limit then
      return false, remaining, NEVER, reset_after, more_after, at
    end
    if cost > remaining then
      return false, remaining, wait(limit, window, r, cur, prev, cost), reset_after, more_after, at
    end
    return true, remaining, 0, reset_after, more_after, at, cur, prev, k, at
  end

  local function commit(key, now, limit, window, capacity, cost, cur, prev, k, at)
    local n = cur + cost
    store(key, format('%.0f %.0f %.0f', k, n, prev), (k + 2) * window - now + TTL_MARGIN_MS)
    return fields(n, prev, at - k * window, limit, window)
  end
  return decide, commit
end
