/**
 * The limits as Lua scripts: each check and its count happen in one step on Redis, so replicas
 * sharing it count as one. Times are Redis's own clock (TIME), not the replicas'.
 */
import type { Redis } from 'ioredis'

/** Milliseconds on Redis's clock. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`

/**
 * A fixed window: adds ARGV[1] to the count when it fits under ARGV[2], starting the window of
 * ARGV[3] ms with the first count. A refused amount is not counted. Returns -1 when it was added,
 * else the ms until the window ends.
 */
const WINDOW_ADD = `local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if used + amount > tonumber(ARGV[2]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then return tonumber(ARGV[3]) end
  return ttl
end
if redis.call('INCRBY', KEYS[1], amount) == amount then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return -1`

/**
 * A concurrency slot: KEYS[1] is a sorted set of the slots held, each scored by when its lease
 * ends, its member "<taken at>:<id>". Leases past their end (a replica that died) are dropped
 * first. Takes a slot ARGV[1] of ARGV[2] for ARGV[3] ms when fewer than ARGV[2] are held: returns
 * {1, member}; else {0, held, ms since the oldest was taken, typical hold ms or -1} (KEYS[2]).
 */
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZRANGE', KEYS[1], 0, -1)
local limit = tonumber(ARGV[2])
if #held >= limit then
  local oldest = now
  for _, member in ipairs(held) do
    local taken = tonumber(string.match(member, '^(%d+):'))
    if taken and taken < oldest then oldest = taken end
  end
  local typical = tonumber(redis.call('GET', KEYS[2]) or '-1')
  return {0, #held, now - oldest, math.floor(typical)}
end
local lease = tonumber(ARGV[3])
local member = string.format('%d', now) .. ':' .. ARGV[1]
redis.call('ZADD', KEYS[1], now + lease, member)
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
return {1, member}`

/** Extends the leases of the members ARGV[2..] still held by ARGV[1] ms (a lease already lost stays lost). */
const RENEW = `${NOW}
local lease = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + lease, ARGV[i]) end
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
return 0`

/**
 * Gives slot ARGV[1] back and folds how long it was held (now minus when it was taken) into the
 * key's typical hold, KEYS[2] (an exponentially weighted mean, kept ARGV[2] ms).
 */
const RELEASE = `${NOW}
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
local held = now - tonumber(string.match(ARGV[1], '^(%d+):'))
local typical = tonumber(redis.call('GET', KEYS[2]) or '-1')
if typical >= 0 then held = 0.8 * typical + 0.2 * held end
redis.call('SET', KEYS[2], math.floor(held), 'PX', ARGV[2])
return 1`

type ScriptCall = (...keysAndArgs: (string | number)[]) => Promise<unknown>

export interface LimitScripts {
  windowAdd(key: string, amount: number, limit: number, windowMs: number): Promise<number>
  acquire(slots: string, hold: string, id: string, limit: number, leaseMs: number): Promise<[1, string] | [0, number, number, number]>
  renew(slots: string, leaseMs: number, members: string[]): Promise<unknown>
  release(slots: string, hold: string, member: string, keepMs: number): Promise<unknown>
}

/** The scripts on `client` (sent once, then called by their digest). */
export function limitScripts(client: Redis): LimitScripts {
  const define = (name: string, keys: number, lua: string): ScriptCall => {
    client.defineCommand(name, { numberOfKeys: keys, lua })
    return (...keysAndArgs) => (client as unknown as Record<string, ScriptCall>)[name]!(...keysAndArgs)
  }
  const windowAdd = define('svcTtsWindowAdd', 1, WINDOW_ADD)
  const acquire = define('svcTtsAcquire', 2, ACQUIRE)
  const renew = define('svcTtsRenew', 1, RENEW)
  const release = define('svcTtsRelease', 2, RELEASE)
  return {
    windowAdd: async (key, amount, limit, windowMs) => Number(await windowAdd(key, amount, limit, windowMs)),
    acquire: async (slots, hold, id, limit, leaseMs) => (await acquire(slots, hold, id, limit, leaseMs)) as [1, string] | [0, number, number, number],
    renew: (slots, leaseMs, members) => renew(slots, leaseMs, ...members),
    release: (slots, hold, member, keepMs) => release(slots, hold, member, keepMs),
  }
}
