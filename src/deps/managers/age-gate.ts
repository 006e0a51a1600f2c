/**
 * The cutoff as an age in whole minutes (pnpm, yarn) or seconds (bun), for
 * the tools that take an age rather than a date. They compare it with their
 * own clock, so the real one is used here; rounding up keeps the cutoff at
 * least as strict.
 */
export function ageMinutes(before: Date): number {
  return Math.max(1, Math.ceil((Date.now() - before.getTime()) / 60_000));
}

export function ageSeconds(before: Date): number {
  return Math.max(1, Math.ceil((Date.now() - before.getTime()) / 1000));
}
