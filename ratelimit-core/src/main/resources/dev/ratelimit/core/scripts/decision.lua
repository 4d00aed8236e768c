-- decision.lua: one request's decision against its limits, all or nothing, as rate_limit.lua documents it (KEYS, ARGV,
-- reply, what is written), written as a function of where the request's KEYS and ARGV start, so that rate_limit.lua
-- (one request a call) and batch.lua (several) decide by the same rule, written once.
--
-- decide_request(k, t, limits, now) -> rate_limit.lua's reply for the request (6 integers per limit), or an error
-- reply (redis.error_reply) for an algorithm code this script does not hold
--   k       the request's state keys are KEYS[k + 1] ... KEYS[k + limits]
--   t       ARGV[t] is the request's time; its six values per limit follow, ARGV[t + 1 + 6 * (i - 1) ...]
--   limits  its number of limits
--   now     the time it is decided at
-- An error of a Redis command (WRONGTYPE on a key of another type) is raised, as redis.call raises it: what the
-- request wrote before it stays written (Redis does not roll a script back), which with several limits is the commits
-- of the limits before the failing one; decisions never write before every limit is decided, so a failing decide
-- leaves nothing written.
-- Joined after algorithms.lua and usage.lua (or what stands for it): record_usage is nil but in a decision of one
-- request whose limits record usage (rate_limit.lua; batch.lua never carries such a request).
local function decide_request(k, t, limits, now)
  -- One limit, the common case: its own verdict decides, and no table is built but the reply.
  if limits == 1 then
    local code = ARGV[t + 1]
    local decide, commit = algorithm_of(code)
    if decide == nil then
      return redis.error_reply(UNKNOWN .. tostring(code))
    end
    local key = KEYS[k + 1]
    local limit, window, capacity, cost = tonumber(ARGV[t + 2]), tonumber(ARGV[t + 3]),
      capacity_or_lease(code, ARGV[t + 4]), tonumber(ARGV[t + 5])
    local allowed, remaining, retry_after, reset_after, more_after, at, s1, s2, s3, s4 =
      decide(key, now, limit, window, capacity, cost, true)
    if not allowed then
      return { 0, max(remaining, 0), retry_after, reset_after, more_after, at }
    end
    remaining, reset_after, more_after = commit(key, now, limit, window, capacity, cost, s1, s2, s3, s4)
    if record_usage then
      record_usage(1, ARGV[t + 5])
    end
    return { 1, max(remaining, 0), 0, reset_after, more_after, at }
  end

  -- Several limits: every one is decided before anything is written. The reply is filled in as they are decided, and
  -- what each admitting limit's commit needs is kept in one flat table, five values a limit: no table per decision.
  local reply, pending = {}, {}
  local all_allowed = true
  for i = 1, limits do
    local at = t + 1 + 6 * (i - 1)
    local decide, commit = algorithm_of(ARGV[at])
    if decide == nil then
      return redis.error_reply(UNKNOWN .. tostring(ARGV[at]))
    end
    local allowed, remaining, retry_after, reset_after, more_after, decided_at, s1, s2, s3, s4 = decide(KEYS[k + i],
      now, tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), capacity_or_lease(ARGV[at], ARGV[at + 3]),
      tonumber(ARGV[at + 4]))
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
        local at, r = t + 1 + 6 * (i - 1), 6 * (i - 1)
        local remaining, reset_after, more_after = commit(KEYS[k + i], now, tonumber(ARGV[at + 1]),
          tonumber(ARGV[at + 2]), capacity_or_lease(ARGV[at], ARGV[at + 3]), tonumber(ARGV[at + 4]), pending[p + 2],
          pending[p + 3], pending[p + 4], pending[p + 5])
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
end
