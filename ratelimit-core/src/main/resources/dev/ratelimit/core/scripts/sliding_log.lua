-- sliding_log.lua: a sorted set of admitted units, score = time in ms. Exact: no span of length W ever
-- holds more than limit units.
--
-- Each admitted unit is its own member "<now>:<n>", n = the set's size after adding it. Members stay unique
-- when many requests share one millisecond: writes at one effective now all see the same trim boundary,
-- so the size only grows between them, and a later now gives a new prefix.
-- Entries with score <= now - W are dropped before deciding (dropping is no consumption: those entries
-- no longer count). The set expires one window after its newest entry.
-- Time never goes backwards: a request older than the newest entry is decided at the newest entry's time.
local function sliding_log(key, now, limit, window, capacity, cost)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if newest[2] ~= nil and tonumber(newest[2]) > now then
    now = tonumber(newest[2])
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
  local count = redis.call('ZCARD', key)
  local reset_after = 0
  if count > 0 then
    local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    reset_after = tonumber(last[2]) + window - now
  end
  if cost > limit then
    return denied(limit - count, NEVER, reset_after)
  end
  if count + cost > limit then
    -- Room for cost units opens when the entry at 1-based position count + cost - limit leaves the window.
    local position = count + cost - limit - 1
    local entry = redis.call('ZRANGE', key, position, position, 'WITHSCORES')
    return denied(limit - count, tonumber(entry[2]) + window - now, reset_after)
  end
  return allowed(limit - count, reset_after, function()
    -- ZADD in batches: unpack of one huge table would overflow Lua's C stack.
    local batch = {}
    for n = count + 1, count + cost do
      batch[#batch + 1] = int(now)
      batch[#batch + 1] = int(now) .. ':' .. int(n)
      if #batch >= 1000 then
        redis.call('ZADD', key, unpack(batch))
        batch = {}
      end
    end
    if #batch > 0 then
      redis.call('ZADD', key, unpack(batch))
    end
    redis.call('PEXPIRE', key, int(window))
    return limit - count - cost, window
  end)
end

