-- lesson_token_bucket.lua: the bare token bucket of the lesson this project grew from, as the baseline of the
-- benchmark (never used by the limiter). One hash with tokens and ts; floating-point refill; no retry-after, no
-- remaining, no reset, no protection against time going backwards.
--
-- KEYS[1]  the bucket
-- ARGV     capacity (tokens), rate (tokens per second), now (ms), cost (tokens)
-- Reply    1 when admitted, 0 when denied
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + (now - ts) / 1000 * rate)
local admitted = 0
if tokens >= cost then
  tokens = tokens - cost
  admitted = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + 1000)
return admitted
