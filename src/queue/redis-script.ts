import type { Redis } from "ioredis";

/** Runs one Lua script: its keys, then its arguments. */
export type LuaScript = (keys: readonly string[], ...args: (string | number)[]) => Promise<unknown>;

/**
 * A Lua script called by its SHA (ioredis's `defineCommand`: EVALSHA, and
 * the text again only when Redis answers NOSCRIPT, after a restart or a
 * SCRIPT FLUSH), not sent whole with each call. The intake's scripts run on
 * the webhook's answer path, several per delivery; their text (up to 1.3 KB)
 * was most of the bytes each delivery wrote to Redis.
 *
 * `name` is the command's name on the connection: one per script.
 */
export function luaScript(redis: Redis, name: string, lua: string): LuaScript {
  const commands = redis as unknown as Record<string, unknown>;
  if (typeof commands[name] !== "function") redis.defineCommand(name, { lua });
  const command = commands[name] as (...args: (string | number)[]) => Promise<unknown>;
  return (keys, ...args) => command.call(redis, keys.length, ...keys, ...args);
}
