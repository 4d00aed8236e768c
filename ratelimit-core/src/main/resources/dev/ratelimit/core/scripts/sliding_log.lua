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
  -- The score at a 0-based position, each read at most once. An admission adds its entries at `at`, which no score
  -- exceeds, so the positions before `count` keep their scores and those from `count` on have `at`: the fields
  -- after the commit need no read. The newest entry, read above, survives the trim whenever anything does.
  local scores = {}
  if count > 0 then
    scores[count - 1] = tonumber(newest[2])
  end
  local function score_at(position)
    if position >= count then
      return at
    end
    if scores[position] == nil then
      scores[position] = tonumber(redis.call('ZRANGE', key, position, position, 'WITHSCORES')[2])
    end
    return scores[position]
  end
  -- Wait until a request of cost c fits, with n entries in the set: room opens when the entry at 1-based
  -- position n + c - limit leaves the window, at its score + W.
  local function wait(n, c)
    if n + c <= limit then
      return 0
    end
    return score_at(n + c - limit - 1) + window - at
  end
  local function reset_after(n)
    if n == 0 then
      return 0
    end
    return wait(n, limit)
  end
  local function more(n)
    return more_after(limit - n, limit, function(c) return wait(n, c) end)
  end
  if cost > limit then
    return denied(limit - count, NEVER, reset_after(count), more(count))
  end
  if count + cost > limit then
    return denied(limit - count, wait(count, cost), reset_after(count), more(count))
  end
  return allowed(limit - count, reset_after(count), more(count), function()
    -- entries at `at` exist only when the newest entry is there
    local taken = 0
    if count > 0 and scores[count - 1] == at then
      taken = redis.call('ZCOUNT', key, int(at), int(at))
    end
    -- ZADD in batches: unpack of one huge table would overflow Lua's C stack.
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
    local n = count + cost
    return limit - n, reset_after(n), more(n)
  end)
end

