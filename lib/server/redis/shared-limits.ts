/** What `svc-tts serve --redis-url` runs: a Redis client and the limiter on it, closed together. */
import type { Redis } from 'ioredis'
import { closeRedis, connectRedis, type RedisConnectionOptions } from './connection.js'
import { RedisLimiter, type RedisLimiterOptions } from './redis-limiter.js'

export interface SharedLimits {
  client: Redis
  limiter: RedisLimiter
  close(): Promise<void>
}

export async function sharedLimits(connection: RedisConnectionOptions, options: RedisLimiterOptions = {}): Promise<SharedLimits> {
  const client = await connectRedis(connection)
  const limiter = new RedisLimiter(client, options)
  return {
    client,
    limiter,
    close: async () => {
      limiter.close()
      await closeRedis(client)
    },
  }
}
