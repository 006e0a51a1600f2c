import * as z from "../zod.js";
import { failTransform } from "../zod.js";

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/**
 * A length of time as people write it: "90s", "15m", "1h", or a number of
 * minutes. Parsed to whole seconds.
 */
export function parseDuration(text: string | number): number | null {
  if (typeof text === "number")
    return text > 0 && Number.isFinite(text) ? Math.round(text * 60) : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*$/i.exec(text);
  if (!match?.[1]) return null;
  const seconds = Number(match[1]) * (UNITS[(match[2] || "m").toLowerCase()] ?? 60);
  return seconds > 0 ? Math.round(seconds) : null;
}

export const durationSchema = z.pipe(
  z.union([z.number(), z.string()], { error: 'expected a duration such as "90s", "15m" or "1h"' }),
  z.transform((value, ctx) => {
    const seconds = parseDuration(value);
    if (seconds !== null) return seconds;
    return failTransform(
      ctx,
      'expected a duration such as "90s", "15m" or "1h" (a bare number is minutes)',
    );
  }),
);
