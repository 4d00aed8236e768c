-- usage_page.lua: one page of a usage set, its clients by units, largest first (docs/ALGORITHMS.md, "Usage"). Reads
-- only. The script that runs is this file alone (LuaScript.usagePage()).
--
-- KEYS[1]  a usage set (usage.lua): member a client id, score its units; the member OVERFLOW holds the units of
--          clients not recorded at the cap
-- ARGV[1]  the rank of the page's first client, from 0 (the largest), the overflow not counted
-- ARGV[2]  the most clients to list
-- Reply    integers: the clients recorded (the overflow aside), the overflow's units, then per client listed, largest
--          first (equal units by the id's bytes, descending): its units, the length n of its id, the n bytes of the id
--          (a script's reply holds integers as the limiter's executors read it)

local OVERFLOW = '\255'

local key = KEYS[1]
local first, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local clients = redis.call('ZCARD', key)
local reply = { clients, 0 }
local overflow_rank = redis.call('ZREVRANK', key, OVERFLOW)
if overflow_rank then
  reply[1] = clients - 1
  reply[2] = tonumber(redis.call('ZSCORE', key, OVERFLOW))
  -- ranks count clients only: the overflow before the page moves the page down by one, within it lengthens it by one
  if overflow_rank <= first then
    first = first + 1
  elseif overflow_rank < first + count then
    count = count + 1
  end
end
if count > 0 then
  local range = redis.call('ZREVRANGE', key, first, first + count - 1, 'WITHSCORES')
  for i = 1, #range, 2 do
    local id = range[i]
    if id ~= OVERFLOW then
      reply[#reply + 1] = tonumber(range[i + 1])
      reply[#reply + 1] = #id
      for b = 1, #id do
        reply[#reply + 1] = string.byte(id, b)
      end
    end
  end
end
return reply
