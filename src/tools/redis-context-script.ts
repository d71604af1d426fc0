// The redis_context tool's one Lua script (its key layout: redis-context-keys.ts), loaded with the tool's first call.
import { luaScript } from '../redis/script';

/**
 * One script for every operation, so each call is atomic: the write, the index update and the expiry
 * refresh happen together, and the max_keys check can not race another writer. A session's values and
 * its index (a SET of key names) share one expiry, refreshed for all of them on every write; that keeps
 * the index exact, and members whose value vanished anyway (eviction, a manual DEL) are pruned before
 * listing or refusing a write. The value keys are derived from ARGV[2] rather than passed in KEYS; they share
 * the index's hash tag, so on a Redis Cluster they are in its slot, on the node running the script. A write's
 * id is remembered with its reply, so the same write sent again (a cluster client retrying during a failover)
 * is applied once: an append is never doubled. On a plain Redis, a session in the old layout (KEYS[4], ARGV[8])
 * is moved here first.
 * KEYS: index, value key, write id[, old index]; ARGV: operation, namespace, ttl, max keys, max bytes, key,
 * value, old namespace, write id ttl.
 */
export const OPERATION_SCRIPT = luaScript(`
local index, namespace = KEYS[1], ARGV[2]
local ttl, maxKeys, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local name, value, operation = ARGV[6], ARGV[7], ARGV[1]
if KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1 then
  local oldIndex, oldNamespace = KEYS[4], ARGV[8]
  local oldTtl = redis.call('PTTL', oldIndex)
  for _, member in ipairs(redis.call('SMEMBERS', oldIndex)) do
    local old, new = oldNamespace .. member, namespace .. member
    if redis.call('EXISTS', old) == 1 then
      if redis.call('EXISTS', new) == 0 then redis.call('RENAME', old, new) else redis.call('DEL', old) end
    end
    redis.call('SADD', index, member)
  end
  redis.call('DEL', oldIndex)
  if oldTtl > 0 and redis.call('PTTL', index) < 0 then redis.call('PEXPIRE', index, oldTtl) end
end
local function prune()
  for _, member in ipairs(redis.call('SMEMBERS', index)) do
    if redis.call('EXISTS', namespace .. member) == 0 then redis.call('SREM', index, member) end
  end
end
local function refresh()
  for _, member in ipairs(redis.call('SMEMBERS', index)) do redis.call('EXPIRE', namespace .. member, ttl) end
  redis.call('EXPIRE', index, ttl)
end
if operation == 'get' then return redis.call('GET', KEYS[2]) end
if operation == 'list' then prune() return redis.call('SMEMBERS', index) end
local done = redis.call('GET', KEYS[3])
if done then
  if operation == 'delete' then return tonumber(done) end
  return {'stored', tonumber(done)}
end
if operation == 'delete' then
  local removed = redis.call('DEL', KEYS[2])
  redis.call('SREM', index, name)
  refresh()
  redis.call('SET', KEYS[3], removed, 'EX', tonumber(ARGV[9]))
  return removed
end
local size = string.len(value)
if operation == 'append' then size = size + redis.call('STRLEN', KEYS[2]) end
if size > maxBytes then return {'too_large', size} end
if redis.call('SISMEMBER', index, name) == 0 and redis.call('SCARD', index) >= maxKeys then
  prune()
  if redis.call('SCARD', index) >= maxKeys then return {'too_many_keys', redis.call('SCARD', index)} end
end
if operation == 'append' then size = redis.call('APPEND', KEYS[2], value) else redis.call('SET', KEYS[2], value) end
redis.call('SADD', index, name)
refresh()
redis.call('SET', KEYS[3], size, 'EX', tonumber(ARGV[9]))
return {'stored', size}
`);
