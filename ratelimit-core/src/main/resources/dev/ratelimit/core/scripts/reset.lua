-- reset.lua: deletes one client's state of one or several limits, which gives the client their full allowance.
--
-- KEYS     the state keys to delete; all share the client's hash tag, so one Redis Cluster node holds them all
-- ARGV     none
-- Reply    an array of one integer: how many of the keys existed
return { redis.call('DEL', unpack(KEYS)) }
