-- batch.lua: decides several requests (the members of a batch) in one call, one after the other in the order given,
-- each exactly as rate_limit.lua decides it alone: a later member sees what an earlier one wrote, as a later call
-- would. Redis' cost of a call (reading it, finding the script, setting up Lua, the reply) is paid once for them all.
--
-- The script that runs is common.lua, the algorithm files of the members' limits, algorithms.lua, what stands for
-- usage.lua (no member records usage: such a request is sent alone), decision.lua and this file, joined in that order
-- (LuaScript.forBatch).
--
-- KEYS     every member's state keys, member after member, each in rate_limit.lua's order (on a Redis Cluster, every
--          member's client is of one hash slot)
-- ARGV[1]  -1 when a member decides at the Redis server's time (TIME, read once for the whole batch), else 0
-- ARGV[2]  the number of members
-- ARGV[3 ...]  each member's values, member after member: its number of limits n, then rate_limit.lua's ARGV for it
--          (its time in ms, -1 for the server's; then six values per limit), 2 + 6 * n values
-- Reply    per member, in order: 0 then rate_limit.lua's reply for it (6 integers per limit); or, when the member
--          failed, 1, the length in bytes of Redis' error and its bytes, one integer each (a script's reply holds
--          integers as the executors read it)
--
-- Each member is decided under pcall: an error (WRONGTYPE on a key that is not the algorithm's type, an algorithm this
-- script does not hold) answers that member alone, and the next members are decided as if it had not been sent. What
-- the failing member wrote before its error stays written, as when it runs alone and the error ends its call (Redis
-- does not roll a script back): with several limits, the commits of those before the failing one (decision.lua).
-- Java bounds a batch (DecisionBatches: members and bytes), since a script run delays every other command of Redis.
local reply, r = {}, 0
local k, a = 0, 3
for _ = 1, tonumber(ARGV[2]) do
  local limits, time = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  if time < 0 then
    time = now
  end
  local ok, answer = pcall(decide_request, k, a + 1, limits, time)
  local err
  if not ok then
    -- Redis 7 raises a command's error as a table with its text in err, earlier versions as the text
    err = (type(answer) == 'table' and answer.err) or tostring(answer)
  elseif answer.err then
    err = answer.err
  end
  if err then
    reply[r + 1], reply[r + 2] = 1, #err
    for i = 1, #err do
      reply[r + 2 + i] = string.byte(err, i)
    end
    r = r + 2 + #err
  else
    reply[r + 1] = 0
    for i = 1, #answer do
      reply[r + 1 + i] = answer[i]
    end
    r = r + 1 + #answer
  end
  k, a = k + limits, a + 2 + 6 * limits
end
return reply
