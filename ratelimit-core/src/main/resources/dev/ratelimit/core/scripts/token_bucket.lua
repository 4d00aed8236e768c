-- token_bucket.lua: a bucket of capacity tokens, refilled lazily with limit tokens per window.
--
-- State (one hash per client and limit): t = tokens scaled by W (so a refill of limit per W ms is exactly
-- limit scaled units per ms, and no fraction is ever rounded), ts = time of the last refill in ms.
-- tokens = min(C, tokens + elapsed * L / W) becomes t = min(C * W, t + elapsed * L) in integers.
-- Admit iff t >= cost * W. A missing bucket is a full one; the hash expires once it would be full again
-- (plus TTL_MARGIN_MS), so an expired bucket and a full one cannot be told apart.
-- Time never goes backwards: ts never decreases and elapsed time is never negative. A request older than ts is
-- decided at ts ("at"); TTLs are counted from the request's own time.
local function token_bucket(key, now, limit, window, capacity, cost)
  local full = capacity * window
  local at = now
  local state = redis.call('HMGET', key, 't', 'ts')
  local tokens, ts = tonumber(state[1]), tonumber(state[2])
  if tokens == nil or ts == nil then
    tokens = full
  else
    if ts > at then
      at = ts
    end
    -- Compare times rather than multiply: elapsed * limit could leave the exact range after a long idle.
    if at - ts >= ceil_div(full - tokens, limit) then
      tokens = full
    else
      tokens = tokens + (at - ts) * limit
    end
  end
  -- Wait until a request of cost c fits, with t scaled tokens: ceil((c - tokens) x W / L).
  local function wait(t, c)
    if t >= c * window then
      return 0
    end
    return ceil_div(c * window - t, limit)
  end
  local function reset_after(t)
    return wait(t, capacity)
  end
  local function more(t)
    return more_after(idiv(t, window), capacity, function(c) return wait(t, c) end)
  end
  if cost > capacity then
    return denied(idiv(tokens, window), NEVER, reset_after(tokens), more(tokens))
  end
  if tokens < cost * window then
    return denied(idiv(tokens, window), wait(tokens, cost), reset_after(tokens), more(tokens))
  end
  return allowed(idiv(tokens, window), reset_after(tokens), more(tokens), function()
    local left = tokens - cost * window
    redis.call('HSET', key, 't', int(left), 'ts', int(at))
    redis.call('PEXPIRE', key, int(at - now + reset_after(left) + TTL_MARGIN_MS))
    return idiv(left, window), reset_after(left), more(left)
  end)
end

