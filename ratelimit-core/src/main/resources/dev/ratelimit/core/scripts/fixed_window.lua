-- fixed_window.lua: one counter per client per window k = floor(now / W).
--
-- State (one string per client and limit): "<w> <c>", w = index of the window counted, c = units admitted in it.
-- Admit iff c + cost <= limit. The state expires at the end of its window (plus TTL_MARGIN_MS).
-- A request whose clock is behind the stored window (k < w) is decided at the start of the stored window
-- ("at"): time never goes backwards, so a lagging clock cannot reopen an old, emptier window. TTLs are counted
-- from the request's own time, so the key still lives until the stored window ends.
-- Known property: a client straddling a boundary gets up to 2 x limit within a short span.
-- Makes this algorithm's decide and commit, or its settle (see common.lua): only the algorithms a call uses are made.
local function fixed_window(settling)
  -- remaining, reset-after and more-after with n units counted and the next window next_ms away. Both waits are 0
  -- with nothing counted; otherwise only the next window has room for the full limit, or for one more unit than
  -- remains now.
  local function fields(n, limit, next_ms)
    if n <= 0 then
      return limit - n, 0, 0
    end
    return limit - n, next_ms, next_ms
  end

  -- The count of the window the request is decided in, that window's index k, and `at`.
  local function load(key, now, window)
    local at = now
    local k = idiv(at, window)
    local count = 0
    local state = redis.call('GET', key)
    if state then
      local w, c = match(state, '^(%d+) (%d+)$')
      w, c = tonumber(w), tonumber(c)
      if w ~= nil and c ~= nil and w >= k then
        if w > k then
          k = w
          at = w * window
        end
        count = c
      end
    end
    return count, k, at
  end

  if settling then
    -- A charge counts in the current window, even beyond the limit; a refund only in the reservation's own window.
    local function settle(key, now, limit, window, capacity, delta, reserved_at)
      local count, k, at = load(key, now, window)
      local n = count
      if delta > 0 then
        n = math.min(count + delta, idiv(MAX_SCALED, window) - 1)
      elseif delta < 0 and idiv(reserved_at, window) == k then
        n = max(count + delta, 0)
      end
      if n ~= count then
        store(key, format('%.0f %.0f', k, n), (k + 1) * window - now + TTL_MARGIN_MS)
      end
      local remaining, reset_after, more_after = fields(n, limit, (k + 1) * window - at)
      return remaining, reset_after, more_after, at
    end
    return nil, nil, settle
  end

  local function decide(key, now, limit, window, capacity, cost)
    local count, k, at = load(key, now, window)
    local next_ms = (k + 1) * window - at
    local remaining, reset_after, more_after = fields(count, limit, next_ms)
    if cost > limit then
      return false, remaining, NEVER, reset_after, more_after, at
    end
    if count + cost > limit then
      return false, remaining, next_ms, reset_after, more_after, at
    end
    return true, remaining, 0, reset_after, more_after, at, count, k, at
  end

  local function commit(key, now, limit, window, capacity, cost, count, k, at)
    local n = count + cost
    store(key, format('%.0f %.0f', k, n), (k + 1) * window - now + TTL_MARGIN_MS)
    return fields(n, limit, (k + 1) * window - at)
  end
  return decide, commit
end
