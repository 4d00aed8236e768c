-- reset_all.lua: deletes one batch of the keys of clients' states under a key prefix (SCAN's next step), so that a
-- caller deletes them all in calls that each hold Redis only briefly.
--
-- KEYS     none
-- ARGV[1]  the SCAN cursor: 0 to begin, then the one the last call replied
-- ARGV[2]  the pattern of the states' keys: <prefix>{????????????}:* with the prefix's glob characters escaped; never
--          a key outside it (the overrides' <prefix>{overrides} has no 12-character tag)
-- ARGV[3]  the SCAN COUNT hint
-- Reply    an array of two integers: the next cursor (0: done), and how many keys this call deleted; an error on a
--          Redis Cluster node, whose other nodes no call of this script reaches
if pcall(redis.call, 'CLUSTER', 'MYID') then
  return redis.error_reply('resetting every state is not supported on a Redis Cluster: a script reaches one node')
end
local scan = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
local keys = scan[2]
local deleted = 0
if #keys > 0 then
  deleted = redis.call('UNLINK', unpack(keys))
end
return { tonumber(scan[1]), deleted }
