-- sliding_log.lua: a sorted set of admitted units, score = time in ms. Exact: no span of length W ever
-- holds more than limit units.
--
-- Each admitted unit is its own member "<t>:<n>", the n-th unit admitted at score t. Members stay unique when
-- many requests share one millisecond: the members at one score are always <t>:1 ... <t>:m, since a trim
-- removes a score's members all together, so the next one is <t>:(m + 1) with m = ZCOUNT of that score.
-- Entries with score <= at - W are dropped before deciding (dropping is no consumption: those entries
-- no longer count). The set expires one window after its newest entry (plus TTL_MARGIN_MS).
-- Time never goes backwards: a request older than the newest entry is decided at the newest entry's time
-- ("at"); TTLs are counted from the request's own time, so the set still lives one window past that entry.
local function sliding_log(key, now, limit, window, capacity, cost)
  local at = now
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if newest[2] ~= nil and tonumber(newest[2]) > at then
    at = tonumber(newest[2])
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(at - window))
  local count = redis.call('ZCARD', key)
  local reset_after = 0
  if count > 0 then
    local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    reset_after = tonumber(last[2]) + window - at
  end
  if cost > limit then
    return denied(limit - count, NEVER, reset_after)
  end
  if count + cost > limit then
    -- Room for cost units opens when the entry at 1-based position count + cost - limit leaves the window.
    local position = count + cost - limit - 1
    local entry = redis.call('ZRANGE', key, position, position, 'WITHSCORES')
    return denied(limit - count, tonumber(entry[2]) + window - at, reset_after)
  end
  return allowed(limit - count, reset_after, function()
    -- ZADD in batches: unpack of one huge table would overflow Lua's C stack.
    local taken = redis.call('ZCOUNT', key, int(at), int(at))
    local batch = {}
    for n = taken + 1, taken + cost do
      batch[#batch + 1] = int(at)
      batch[#batch + 1] = int(at) .. ':' .. int(n)
      if #batch >= 1000 then
        redis.call('ZADD', key, unpack(batch))
        batch = {}
      end
    end
    if #batch > 0 then
      redis.call('ZADD', key, unpack(batch))
    end
    redis.call('PEXPIRE', key, int(at + window - now + TTL_MARGIN_MS))
    return limit - count - cost, window
  end)
end

