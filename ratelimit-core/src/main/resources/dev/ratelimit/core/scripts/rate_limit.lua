-- rate_limit.lua: decides one request against one or several limits of one client, all or nothing.
--
-- The script that runs is common.lua, the four algorithm files, algorithms.lua and this file, joined in that order
-- (LuaScript.rateLimit()), so that limits of different algorithms are decided in one call.
--
-- KEYS[i]  state key of limit i. All keys of one call share one hash tag (the client), so one Redis
--          Cluster node holds them all.
-- ARGV[1]  now in ms since the epoch, or -1 to use the Redis server's clock (TIME, truncated to ms)
-- ARGV[2 + 6 * (i - 1) ...]  six values for limit i:
--          algorithm ("fw" fixed window, "sl" sliding log, "swc" sliding window counter, "tb" token bucket),
--          limit (units per window), window (ms), capacity (token bucket; ignored otherwise), cost (units),
--          shadow ("1" shadow, "0" enforced)
-- Reply    an array of 5 integers per limit, in KEYS order:
--          allowed (1 or 0: this limit's own verdict; the request is admitted only if all are 1), remaining (cost-1 requests still admissible at once),
--          retry-after ms (0 when allowed, -1 when this cost can never be admitted), reset-after ms, more-after ms
--
-- Every limit is checked before anything is written: if an enforced limit denies, none consumes (shadow or
-- enforced); otherwise every limit that admits consumes, and a shadow limit's denial blocks nothing, and the reply gives each
-- limit's state as it stands. Every key written gets a relative TTL (PEXPIRE) in the same call.

local now = request_time(ARGV[1])

local decisions = {}
local all_allowed = true
for i = 1, #KEYS do
  local at = 2 + 6 * (i - 1)
  local algorithm = ALGORITHMS[ARGV[at]]
  if algorithm == nil then
    return redis.error_reply('ERR unknown rate-limit algorithm ' .. tostring(ARGV[at]))
  end
  local decision = algorithm(KEYS[i], now, tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]),
    tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4]))
  decisions[i] = decision
  if ARGV[at + 5] ~= '1' then
    all_allowed = all_allowed and decision.allowed
  end
end

local reply = {}
for i, decision in ipairs(decisions) do
  local remaining, reset_after, more = decision.remaining, decision.reset_after, decision.more_after
  if all_allowed and decision.allowed then
    remaining, reset_after, more = decision.commit()
  end
  local flag = 0
  if decision.allowed then
    flag = 1
  end
  reply[#reply + 1] = flag
  reply[#reply + 1] = nonneg(remaining)
  reply[#reply + 1] = decision.retry_after
  reply[#reply + 1] = reset_after
  reply[#reply + 1] = more
end
return reply
