-- calendar_window.lua: the fixed window of calendar periods (a day, week, month or year in a time zone), code "fc".
--
-- Lua has no time zones, so the application sends the starts of four consecutive periods around its own clock, in
-- the limit's fourth value ("capacity"): "b0 b1 b2 b3" in ms. The request is counted in the period [s, e) of those
-- that holds the script's now (Redis' TIME, or the caller's time): with clocks seconds apart, the period is still the
-- one Redis' clock is in. A now outside [b0, b3) (clocks a whole period apart) is counted in the nearest of them.
-- The window value is the period's nominal length and is not used.
--
-- State (one string per client and limit): "<s> <e> <c> <t>", the period counted, [s, e) in ms, the units admitted
-- in it, and the time of the last write. A stored period that starts at or after the request's period ends is
-- later: a lagging clock, decided at the start of the stored period, as the fixed window decides (time never goes
-- backwards). Otherwise the count counts on when it was last written in the request's period (t >= s) and its own
-- period has not ended: the same period, or one of another unit or zone (the limit was reconfigured). Such a count
-- holds until the earlier of the two periods' ends ("lasts": a denial writes nothing, so the state keeps its own
-- expiry), and an admitted request moves it into the period in force. Else it is forgotten. The state expires at the
-- end of its period (plus TTL_MARGIN_MS). docs/ALGORITHMS.md, "Calendar periods".
-- Makes this algorithm's decide and commit, or its settle (see common.lua).
local function calendar_window(settling)
  -- remaining, reset-after and more-after with n units counted and the period ending next_ms away: the fixed
  -- window's rule (fixed_window.lua), written in each file, as its decide and commit are: a function shared through
  -- common.lua would be made on every call of every script, calendar or not (see common.lua).
  local function fields(n, limit, next_ms)
    if n <= 0 then
      return limit - n, 0, 0
    end
    return limit - n, next_ms, next_ms
  end

  -- The count of the period the request is decided in, that period [s, e), `at`, and until when the count holds
  -- unless a request is admitted (e, or the earlier end of a reconfigured limit's stored period).
  local function load(key, now, bounds)
    local b0, b1, b2, b3 = match(bounds, '^(%d+) (%d+) (%d+) (%d+)$')
    local s, e = tonumber(b1), tonumber(b2)
    if now < s then
      s, e = tonumber(b0), s
    elseif now >= e then
      s, e = e, tonumber(b3)
    end
    local at = now
    if at < s then
      at = s
    elseif at >= e then
      at = e - 1
    end
    local count = 0
    local lasts = e
    local state = redis.call('GET', key)
    if state then
      local ws, we, c, t = match(state, '^(%d+) (%d+) (%d+) (%d+)$')
      ws, we, c, t = tonumber(ws), tonumber(we), tonumber(c), tonumber(t)
      if ws ~= nil and we ~= nil and c ~= nil and t ~= nil then
        if ws >= e then
          s, e, at, lasts = ws, we, ws, we
          count = c
        elseif t >= s and we > at then
          count = c
          if we < e then
            lasts = we
          end
        end
      end
    end
    return count, s, e, at, lasts
  end

  local function write(key, now, s, e, n, at)
    store(key, format('%.0f %.0f %.0f %.0f', s, e, n, at), max(e - now, 0) + TTL_MARGIN_MS)
  end

  if settling then
    -- A charge counts in the current period, even beyond the limit; a refund only in the reservation's own period.
    local function settle(key, now, limit, window, bounds, delta, reserved_at)
      local count, s, e, at, lasts = load(key, now, bounds)
      local n = count
      if delta > 0 then
        n = math.min(count + delta, MAX_SCALED - 1)
      elseif delta < 0 and reserved_at >= s and reserved_at < e then
        n = max(count + delta, 0)
      end
      if n ~= count then
        write(key, now, s, e, n, at)
        lasts = e
      end
      local remaining, reset_after, more_after = fields(n, limit, lasts - at)
      return remaining, reset_after, more_after, at
    end
    return nil, nil, settle
  end

  local function decide(key, now, limit, window, bounds, cost)
    local count, s, e, at, lasts = load(key, now, bounds)
    local next_ms = lasts - at
    local remaining, reset_after, more_after = fields(count, limit, next_ms)
    if cost > limit then
      return false, remaining, NEVER, reset_after, more_after, at
    end
    if count + cost > limit then
      return false, remaining, next_ms, reset_after, more_after, at
    end
    return true, remaining, 0, reset_after, more_after, at, count, s, e, at
  end

  local function commit(key, now, limit, window, bounds, cost, count, s, e, at)
    local n = count + cost
    write(key, now, s, e, n, at)
    return fields(n, limit, e - at)
  end
  return decide, commit
end
