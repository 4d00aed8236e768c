-- leases.lua: lists the leases held of one client's concurrency limit, soonest expiry first, without writing
-- anything (docs/ALGORITHMS.md, "Concurrency"). The script that runs is common.lua and this file (LuaScript.leases()).
--
-- KEYS[1]  the limit's lease set (as in rate_limit.lua)
-- ARGV[1]  now in ms since the epoch, or -1 to use the Redis server's clock
-- Reply    integers, per lease: ms until it expires, the length n of its id, then the n bytes of the id (a script's
--          reply holds integers as the limiter's executors read it)
--
-- Leases whose expiry is at or before now are left out, as a decision would sweep them; nothing is removed.

local held = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. format('%.0f', now), '+inf', 'WITHSCORES')
local reply = {}
for i = 1, #held, 2 do
  local id = held[i]
  reply[#reply + 1] = tonumber(held[i + 1]) - now
  reply[#reply + 1] = #id
  for b = 1, #id do
    reply[#reply + 1] = string.byte(id, b)
  end
end
return reply
