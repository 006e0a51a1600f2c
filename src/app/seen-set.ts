/**
 * Remembers the last `limit` keys (delivery ids, triggering objects) so a
 * webhook seen before is recognised, without growing forever.
 */
export function createSeenSet(limit: number) {
  const seen = new Set<string>();
  return {
    /** True when none of the keys was seen before; remembers them all either way. */
    firstSighting(keys: readonly string[]): boolean {
      const fresh = keys.every((key) => !seen.has(key));
      for (const key of keys) {
        seen.delete(key);
        seen.add(key);
      }
      while (seen.size > limit) {
        const oldest = seen.values().next().value;
        if (oldest === undefined) break;
        seen.delete(oldest);
      }
      return fresh;
    },
  };
}
