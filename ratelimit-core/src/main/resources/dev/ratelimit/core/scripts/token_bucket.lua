-- token_bucket.lua: a bucket of capacity tokens, refilled lazily with limit tokens per window.
--
-- State (one string per client and limit): "<t> <ts>", t = tokens scaled by W (so a refill of limit per W ms is
-- exactly limit scaled units per ms, and no fraction is ever rounded), ts = time of the last refill in ms.
-- tokens = min(C, tokens + elapsed * L / W) becomes t = min(C * W, t + elapsed * L) in integers.
-- Admit iff t >= cost * W. A settled charge can leave t below 0 (debt), stored with its sign. A missing bucket is a
-- full one; the state expires once it would be full again
-- (plus TTL_MARGIN_MS), so an expired bucket and a full one cannot be told apart.
-- Time never goes backwards: ts never decreases and elapsed time is never negative. A request older than ts is
-- decided at ts ("at"); TTLs are counted from the request's own time.
-- Makes this algorithm's decide and commit, or its settle (see common.lua): only the algorithms a call uses are made.
local function token_bucket(settling)
  -- remaining, reset-after and more-after of a bucket holding t scaled tokens. The wait until a request of cost c
  -- fits is ceil((c x W - t) / L), 0 when t >= c x W; written out here rather than as a function, one closure and
  -- three calls fewer on every call. (ceil(a / b) is idiv(a + b - 1, b).)
  local function fields(t, limit, window, capacity)
    local remaining = idiv(t, window)
    local more, reset = 0, 0
    if remaining < capacity then
      -- The wait for cost max(remaining, 0) + 1, never 0: t < (remaining + 1) x W, and t < W when remaining < 0.
      more = idiv((max(remaining, 0) + 1) * window - t + limit - 1, limit)
    end
    if t < capacity * window then
      reset = idiv(capacity * window - t + limit - 1, limit)
    end
    return remaining, reset, more
  end

  -- The scaled tokens refilled by `at` (a full bucket when none is stored, one in debt below 0), and `at`.
  local function load(key, now, limit, window, capacity)
    local full = capacity * window
    local at = now
    local tokens = full
    local state = redis.call('GET', key)
    if state then
      local t, ts = match(state, '^(-?%d+) (%d+)$')
      t, ts = tonumber(t), tonumber(ts)
      if t ~= nil and ts ~= nil then
        if ts > at then
          at = ts
        end
        -- Compare times rather than multiply: elapsed * limit could leave the exact range after a long idle.
        if at - ts < idiv(full - t + limit - 1, limit) then
          tokens = t + (at - ts) * limit
        end
      end
    end
    return tokens, at
  end

  if settling then
    -- A charge takes tokens even below 0 (debt); a refund gives them back up to the capacity.
    local function settle(key, now, limit, window, capacity, delta, reserved_at)
      local tokens, at = load(key, now, limit, window, capacity)
      local left = tokens - delta * window
      local most_debt = (idiv(MAX_SCALED, window) - 1) * window
      if left > capacity * window then
        left = capacity * window
      elseif left < -most_debt then
        left = -most_debt
      end
      local remaining, reset_after, more_after = fields(left, limit, window, capacity)
      if left ~= tokens then
        store(key, format('%.0f %.0f', left, at), at - now + reset_after + TTL_MARGIN_MS)
      end
      return remaining, reset_after, more_after, at
    end
    return nil, nil, settle
  end

  local function decide(key, now, limit, window, capacity, cost, committing)
    local tokens, at = load(key, now, limit, window, capacity)
    if committing and cost <= capacity and tokens >= cost * window then
      return true, nil, 0, nil, nil, at, tokens, at
    end
    local remaining, reset_after, more_after = fields(tokens, limit, window, capacity)
    if cost > capacity then
      return false, remaining, NEVER, reset_after, more_after, at
    end
    if tokens < cost * window then
      return false, remaining, idiv(cost * window - tokens + limit - 1, limit), reset_after, more_after, at
    end
    return true, remaining, 0, reset_after, more_after, at, tokens, at
  end

  local function commit(key, now, limit, window, capacity, cost, tokens, at)
    local left = tokens - cost * window
    local remaining, reset_after, more_after = fields(left, limit, window, capacity)
    store(key, format('%.0f %.0f', left, at), at - now + reset_after + TTL_MARGIN_MS)
    return remaining, reset_after, more_after
  end
  return decide, commit
end
