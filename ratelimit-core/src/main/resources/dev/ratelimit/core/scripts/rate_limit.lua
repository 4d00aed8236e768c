-- rate_limit.lua: decides one request against one or several limits of one client, all or nothing.
--
-- The script that runs is common.lua, the four algorithm files, algorithms.lua (and usage.lua when a limit records
-- usage) and this file, joined in that order (LuaScript.rateLimit()), so that limits of different algorithms are
-- decided in one call.
--
-- KEYS[i]  state key of limit i. All state keys of one call share one hash tag (the client), so one Redis
--          Cluster node holds them all (and the usage sets after them, usage.lua, are in that slot on a Cluster).
-- ARGV[1]  now in ms since the epoch, or -1 to use the Redis server's clock (TIME, truncated to ms)
-- ARGV[2 + 6 * (i - 1) ...]  six values for limit i:
--          algorithm ("fw" fixed window, "sl" sliding log, "swc" sliding window counter, "tb" token bucket,
--          "cc" concurrency, "fc" fixed window of calendar periods), limit (units per window; leases at once), window
--          (ms; the lease time; a calendar period's nominal length), capacity (token bucket; the lease id for
--          concurrency; the starts of four periods "b0 b1 b2 b3" for calendar periods; ignored otherwise), cost (units),
--          shadow ("1" shadow, "0" enforced)
-- Reply    an array of 6 integers per limit, in KEYS order:
--          allowed (1 or 0: this limit's own verdict; the request is admitted only if all are 1), remaining (cost-1 requests still admissible at once),
--          retry-after ms (0 when allowed, -1 when this cost can never be admitted), reset-after ms, more-after ms,
--          and the time in ms the limit was decided at (now, or its stored time when now is earlier), which a
--          settlement of the request's cost needs (settle.lua)
--
-- Every limit is checked before anything is written: if an enforced limit denies, none consumes (shadow or
-- enforced); otherwise every limit that admits consumes, and a shadow limit's denial blocks nothing, and the reply gives each
-- limit's state as it stands. Every key written gets a relative TTL (SET ... PX or PEXPIRE) in the same call.
--
-- Limits that record usage add KEYS and ARGV after the limits' (usage.lua, joined before this file only then): there,
-- usage_limits is the number of limits and record_usage records what a limit consumes; both are nil otherwise.
local limits = usage_limits or #KEYS

-- One limit, the common case: its own verdict decides, and no table is built but the reply.
if limits == 1 then
  local decide, commit = algorithm_of(ARGV[2])
  if decide == nil then
    return redis.error_reply(UNKNOWN .. tostring(ARGV[2]))
  end
  local limit, window, capacity, cost = tonumber(ARGV[3]), tonumber(ARGV[4]), capacity_or_lease(ARGV[2], ARGV[5]),
    tonumber(ARGV[6])
  local allowed, remaining, retry_after, reset_after, more_after, at, s1, s2, s3, s4 =
    decide(KEYS[1], now, limit, window, capacity, cost, true)
  if not allowed then
    return { 0, max(remaining, 0), retry_after, reset_after, more_after, at }
  end
  remaining, reset_after, more_after = commit(KEYS[1], now, limit, window, capacity, cost, s1, s2, s3, s4)
  if record_usage then
    record_usage(1, ARGV[6])
  end
  return { 1, max(remaining, 0), 0, reset_after, more_after, at }
end

-- Several limits: every one is decided before anything is written. The reply is filled in as they are decided, and
-- what each admitting limit's commit needs is kept in one flat table, five values a limit: no table per decision.
local reply, pending = {}, {}
local all_allowed = true
for i = 1, limits do
  local at = 2 + 6 * (i - 1)
  local decide, commit = algorithm_of(ARGV[at])
  if decide == nil then
    return redis.error_reply(UNKNOWN .. tostring(ARGV[at]))
  end
  local allowed, remaining, retry_after, reset_after, more_after, decided_at, s1, s2, s3, s4 = decide(KEYS[i], now,
    tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), capacity_or_lease(ARGV[at], ARGV[at + 3]), tonumber(ARGV[at + 4]))
  local flag = 0
  if allowed then
    flag = 1
  elseif ARGV[at + 5] ~= '1' then
    all_allowed = false
  end
  local r = 6 * (i - 1)
  reply[r + 1] = flag
  reply[r + 2] = max(remaining, 0)
  reply[r + 3] = retry_after
  reply[r + 4] = reset_after
  reply[r + 5] = more_after
  reply[r + 6] = decided_at
  local p = 5 * (i - 1)
  pending[p + 1] = allowed and commit
  pending[p + 2] = s1
  pending[p + 3] = s2
  pending[p + 4] = s3
  pending[p + 5] = s4
end

if all_allowed then
  for i = 1, limits do
    local p = 5 * (i - 1)
    local commit = pending[p + 1]
    if commit then
      local at, r = 2 + 6 * (i - 1), 6 * (i - 1)
      local remaining, reset_after, more_after = commit(KEYS[i], now, tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]),
        capacity_or_lease(ARGV[at], ARGV[at + 3]), tonumber(ARGV[at + 4]), pending[p + 2], pending[p + 3],
        pending[p + 4], pending[p + 5])
      reply[r + 2] = max(remaining, 0)
      reply[r + 4] = reset_after
      reply[r + 5] = more_after
      if record_usage then
        record_usage(i, ARGV[at + 4])
      end
    end
  end
end
return reply
