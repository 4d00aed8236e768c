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
  local need = cost * window
  local reset_after = ceil_div(full - tokens, limit)
  if cost > capacity then
    return denied(idiv(tokens, window), NEVER, reset_after)
  end
  if tokens < need then
    return denied(idiv(tokens, window), ceil_div(need - tokens, limit), reset_after)
  end
  return allowed(idiv(tokens, window), reset_after, function()
    local left = tokens - need
    local refill_after = ceil_div(full - left, limit)
    redis.call('HSET', key, 't', int(left), 'ts', int(at))
    redis.call('PEXPIRE', key, int(at - now + refill_after + TTL_MARGIN_MS))
    return idiv(left, window), refill_after
  end)
end

