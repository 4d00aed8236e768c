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
-- Makes this algorithm's decide and commit, or its settle (see common.lua): only the algorithms a call uses are made.
local function sliding_log(settling)
  -- The score at a 0-based position of the log (a table: key, count after the trim, at, scores read so far), each
  -- read at most once. An admission adds its entries at `at`, which no score exceeds, so the positions before
  -- `count` keep their scores and those from `count` on have `at`: the fields after the commit need no read.
  local function score_at(log, position)
    if position >= log.count then
      return log.at
    end
    local score = log.scores[position]
    if score == nil then
      score = tonumber(redis.call('ZRANGE', log.key, position, position, 'WITHSCORES')[2])
      log.scores[position] = score
    end
    return score
  end

  -- Wait until a request of cost c fits, with n entries in the set: room opens when the entry at 1-based
  -- position n + c - limit leaves the window, at its score + W.
  local function wait(log, n, c, limit, window)
    if n + c <= limit then
      return 0
    end
    return score_at(log, n + c - limit - 1) + window - log.at
  end

  -- remaining, reset-after and more-after with n entries: both waits are 0 with an empty set.
  local function fields(log, n, limit, window)
    if n <= 0 then
      return limit - n, 0, 0
    end
    return limit - n, wait(log, n, limit, limit, window), wait(log, n, max(limit - n, 0) + 1, limit, window)
  end

  -- The log as the request is decided on it: trimmed at `at`, with its count and newest score.
  local function load(key, now, window)
    local at = now
    local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    if newest[2] ~= nil and tonumber(newest[2]) > at then
      at = tonumber(newest[2])
    end
    redis.call('ZREMRANGEBYSCORE', key, '-inf', format('%.0f', at - window))
    local count = redis.call('ZCARD', key)
    local log = { key = key, count = count, at = at, scores = {} }
    -- The newest entry, read above, survives the trim whenever anything does.
    if count > 0 then
      log.scores[count - 1] = tonumber(newest[2])
    end
    return log
  end

  local function commit(key, now, limit, window, capacity, cost, log)
    local at, count = log.at, log.count
    -- entries at `at` exist only when the newest entry is there
    local score = format('%.0f', at)
    local taken = 0
    if count > 0 and log.scores[count - 1] == at then
      taken = redis.call('ZCOUNT', key, score, score)
    end
    -- ZADD in batches: unpack of one huge table would overflow Lua's C stack.
    local batch = {}
    for n = taken + 1, taken + cost do
      batch[#batch + 1] = score
      batch[#batch + 1] = score .. ':' .. format('%.0f', n)
      if #batch >= 1000 then
        redis.call('ZADD', key, unpack(batch))
        batch = {}
      end
    end
    if #batch > 0 then
      redis.call('ZADD', key, unpack(batch))
    end
    redis.call('PEXPIRE', key, format('%.0f', at + window - now + TTL_MARGIN_MS))
    return fields(log, count + cost, limit, window)
  end

  if settling then
    -- A charge adds entries at `at`, even beyond the limit; a refund removes the highest-numbered entries at the
    -- reservation's score while it is in the window (so those left at that score stay <t>:1 ... <t>:m).
    local function settle(key, now, limit, window, capacity, delta, reserved_at)
      local log = load(key, now, window)
      if delta > 0 then
        -- Entries beyond the limit at `at` change nothing a client sees (all leave the window at at + W, and any cost
        -- then waits for them): at most limit are added.
        local remaining, reset_after, more_after = commit(key, now, limit, window, capacity, math.min(delta, limit),
          log)
        return remaining, reset_after, more_after, log.at
      end
      local count = log.count
      if delta < 0 and reserved_at > log.at - window then
        local score = format('%.0f', reserved_at)
        local m = redis.call('ZCOUNT', key, score, score)
        local n = m
        local batch = {}
        while n > 0 and n > m + delta do
          batch[#batch + 1] = score .. ':' .. format('%.0f', n)
          n = n - 1
          if #batch >= 1000 then
            redis.call('ZREM', key, unpack(batch))
            batch = {}
          end
        end
        if #batch > 0 then
          redis.call('ZREM', key, unpack(batch))
        end
        count = count - (m - n)
        -- the positions have moved: read the scores again
        log = { key = key, count = count, at = log.at, scores = {} }
      end
      local remaining, reset_after, more_after = fields(log, count, limit, window)
      return remaining, reset_after, more_after, log.at
    end
    return nil, nil, settle
  end

  local function decide(key, now, limit, window, capacity, cost)
    local log = load(key, now, window)
    local count, at = log.count, log.at
    local remaining, reset_after, more_after = fields(log, count, limit, window)
    if cost > limit then
      return false, remaining, NEVER, reset_after, more_after, at
    end
    if count + cost > limit then
      return false, remaining, wait(log, count, cost, limit, window), reset_after, more_after, at
    end
    return true, remaining, 0, reset_after, more_after, at, log
  end
  return decide, commit
end
