import { lt, valid } from "semver";
import type { DetectedManager, ManagerName } from "./types.js";

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

/**
 * The first release of each tool whose resolution takes an age gate:
 * pnpm's minimumReleaseAge (10.16), yarn's npmMinimalAgeGate (4.10); yarn 1
 * has none. npm's --before is old, and bun's is the PATH's bun's.
 */
const GATE_SINCE: Partial<Record<ManagerName, string | null>> = {
  "yarn-classic": null,
  pnpm: "10.16.0",
  "yarn-berry": "4.10.0",
};

/**
 * Why the project's package manager resolves a range without the cooldown,
 * or undefined when it takes the job's age gate. pinia pins pnpm@9.4.0:
 * `--config.minimum-release-age` meant nothing to it, and its relock took
 * vue 3.5.47, two days old, where the plan had 3.5.46.
 */
export function noAgeGate(manager: DetectedManager): string | undefined {
  if (!(manager.name in GATE_SINCE)) return undefined;
  const since = GATE_SINCE[manager.name];
  if (!since) return "yarn 1 has no age gate";
  const pinned = /^[a-z]+@(\d+\.\d+\.\d+)/.exec(manager.pinned ?? "")?.[1];
  if (!pinned || !valid(pinned) || !lt(pinned, since)) return undefined;
  const tool = manager.name === "pnpm" ? "pnpm" : "yarn";
  return `${tool} ${pinned} has no age gate (${tool} ${since.replace(/\.0$/, "")} added it)`;
}
