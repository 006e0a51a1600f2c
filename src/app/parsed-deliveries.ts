/** How many parsed deliveries wait for their handler; a delivery the guard saw but no handler took is dropped first. */
const KEPT = 1_000;

/**
 * The guard in front of Probot's middleware parses every signed delivery;
 * the event's handler takes that result instead of parsing the same payload
 * again. Each delivery is handed over once.
 */
export function createParsedDeliveries() {
  const parsed = new Map<string, unknown>();
  return {
    keep<T>(delivery: string, value: T): T {
      parsed.set(delivery, value);
      if (parsed.size > KEPT) parsed.delete(parsed.keys().next().value as string);
      return value;
    },
    /** The guard's result for this delivery (the same parser's), else `parse()`. */
    take<T>(delivery: string, parse: () => T): T {
      if (!parsed.has(delivery)) return parse();
      const value = parsed.get(delivery) as T;
      parsed.delete(delivery);
      return value;
    },
  };
}
