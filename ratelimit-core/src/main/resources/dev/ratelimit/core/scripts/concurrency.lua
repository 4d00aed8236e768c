-- concurrency.lua: at most `limit` calls of one client in flight at once, across every caller.
--
-- State (one sorted set per client and limit): a member per lease, the lease id the caller made, scored by the time
-- in ms the lease expires at: when it was taken or last renewed, plus the lease time (the limit's window).
-- Every call first sweeps the leases expired at `now` (score <= now): a holder that died gives its lease back so.
-- Admit iff the call's lease is already held (the same acquire sent again, or a renewal, which re-scores it) or
-- fewer than `limit` leases are held; the commit adds or re-scores the lease. A settlement with a negative delta
-- gives the lease back (ZREM) and, when the limit was full, announces it (PUBLISH on the key's name); nothing else
-- is ever charged. The set's TTL is its latest expiry plus TTL_MARGIN_MS,
-- set with every write; an emptied set is deleted by Redis, key and TTL.
-- The fourth value of the limit is the lease id (rate_limit.lua passes it as sent; empty when a peek names none),
-- and the cost is always 1.
-- Waits: a lease comes back when its holder gives it back, which no one can know, or at its expiry at the latest if
-- the holder stops renewing it. retry_after (denied) is the earliest expiry, reset_after the latest, more_after the
-- earliest (0 with no lease held): docs/ALGORITHMS.md ("Concurrency") says what the HTTP answers make of them.
-- Time: leases are swept at the request's own time; a lagging clock keeps them longer (admits less), never less.
-- Makes this algorithm's decide and commit, or its settle (see common.lua).
local function concurrency(settling)
  -- The leases held after the sweep, and their earliest and latest expiries (0, 0 with none).
  local function held(key, now)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', format('%.0f', now))
    local count = redis.call('ZCARD', key)
    if count == 0 then
      return 0, 0, 0
    end
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local last = first
    if count > 1 then
      last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    end
    return count, tonumber(first[2]), tonumber(last[2])
  end

  -- remaining, reset-after and more-after with `count` leases held.
  local function fields(count, limit, earliest, latest, now)
    if count == 0 then
      return limit, 0, 0
    end
    return limit - count, latest - now, earliest - now
  end

  if settling then
    local function settle(key, now, limit, window, lease, delta, reserved_at)
      if delta < 0 and lease ~= nil and lease ~= '' then
        redis.call('ZREMRANGEBYSCORE', key, '-inf', format('%.0f', now))
        local full = redis.call('ZCARD', key) >= limit
        -- A lease given back by a full limit may admit a caller that was denied and waits: the release is announced
        -- on the key's name as a channel (PUBLISH; the waiters' instances subscribe by pattern, docs/ALGORITHMS.md).
        -- pcall: an ACL user without the channel still gives the lease back; its waiters retry on their timers.
        if redis.call('ZREM', key, lease) == 1 and full then
          redis.pcall('PUBLISH', key, lease)
        end
      end
      local count, earliest, latest = held(key, now)
      local remaining, reset_after, more_after = fields(count, limit, earliest, latest, now)
      return remaining, reset_after, more_after, now
    end
    return nil, nil, settle
  end

  local function decide(key, now, limit, window, lease, cost)
    local count, earliest, latest = held(key, now)
    local remaining, reset_after, more_after = fields(count, limit, earliest, latest, now)
    local mine = false
    if lease ~= nil and lease ~= '' and count > 0 then
      mine = redis.call('ZSCORE', key, lease) ~= false
    end
    if not mine and count >= limit then
      return false, remaining, earliest - now, reset_after, more_after, now
    end
    return true, remaining, 0, reset_after, more_after, now, count, mine, latest
  end

  local function commit(key, now, limit, window, lease, cost, count, mine, latest)
    local expiry = now + window
    redis.call('ZADD', key, format('%.0f', expiry), lease)
    if expiry > latest then
      latest = expiry
    end
    redis.call('PEXPIRE', key, format('%.0f', latest - now + TTL_MARGIN_MS))
    if not mine then
      count = count + 1
    end
    local earliest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
    return fields(count, limit, earliest, latest, now)
  end
  return decide, commit
end
