import type { Redis } from 'ioredis';

/**
 * A Lua script as a command of `redis` (ioredis `defineCommand`, defined once
 * per connection under `name`): sent by its hash (EVALSHA), and its text only
 * when the server lacks it. With `numberOfKeys` unset, each call passes the
 * number of keys first.
 */
export function redisScript<Args extends Array<string | number>, Result>(redis: Redis, name: string, lua: string, numberOfKeys?: number): (...args: Args) => Promise<Result> {
  if (!(name in redis)) redis.defineCommand(name, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  return (redis as unknown as Record<string, (...args: Args) => Promise<Result>>)[name]!.bind(redis);
}
