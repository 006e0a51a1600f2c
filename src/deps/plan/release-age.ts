import { parse as parseYaml } from "yaml";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import type { NpmConfig } from "../registry/npmrc.js";

/**
 * The minimum release age the project's package manager enforces: npm's
 * `min-release-age` (days, .npmrc), pnpm's `minimum-release-age` (minutes,
 * .npmrc) or `minimumReleaseAge` (minutes, pnpm-workspace.yaml), yarn's
 * `npmMinimalAgeGate` (.yarnrc.yml, minutes or a duration such as "3d"),
 * bun's `minimumReleaseAge` (bunfig.toml's `[install]`, seconds).
 * A version younger than this is refused by the package manager, so the plan
 * must never propose it, not even as a security fix.
 */

export interface ReleaseAge {
  ms: number;
  /** "min-release-age=7 in .npmrc" */
  source: string;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export async function readReleaseAge(
  dir: string,
  npm: Pick<NpmConfig, "options">,
): Promise<ReleaseAge | undefined> {
  const found: ReleaseAge[] = [];
  const days = Number(npm.options["min-release-age"]);
  if (Number.isFinite(days) && days > 0)
    found.push({ ms: days * DAY, source: `min-release-age=${days} (.npmrc)` });
  const minutes = Number(npm.options["minimum-release-age"]);
  if (Number.isFinite(minutes) && minutes > 0)
    found.push({ ms: minutes * MINUTE, source: `minimum-release-age=${minutes} (.npmrc)` });
  const pnpm = await readYaml(dir, "pnpm-workspace.yaml");
  const pnpmAge = Number(pnpm?.minimumReleaseAge);
  if (Number.isFinite(pnpmAge) && pnpmAge > 0)
    found.push({
      ms: pnpmAge * MINUTE,
      source: `minimumReleaseAge: ${pnpmAge} in pnpm-workspace.yaml`,
    });
  const yarn = await readYaml(dir, ".yarnrc.yml");
  const gate = yarn?.npmMinimalAgeGate;
  const gateMs = gate === undefined ? undefined : durationMs(gate);
  if (gateMs)
    found.push({ ms: gateMs, source: `npmMinimalAgeGate: ${String(gate)} in .yarnrc.yml` });
  const bunAge = bunfigReleaseAge(await readWorkspaceText(dir, "bunfig.toml").catch(() => ""));
  if (bunAge)
    found.push({
      ms: bunAge * 1000,
      source: `minimumReleaseAge = ${bunAge} in bunfig.toml [install]`,
    });
  // The strictest wins: every one of them would refuse a younger version.
  return found.reduce<ReleaseAge | undefined>(
    (best, age) => (!best || age.ms >= best.ms ? age : best),
    undefined,
  );
}

async function readYaml(dir: string, file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readWorkspaceText(dir, file).catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = safe(() => parseYaml(text) as unknown);
  return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
}

/**
 * `[install] minimumReleaseAge = 259200` or `install.minimumReleaseAge = …`
 * at the top, in seconds: the one key read, so no TOML parser is needed.
 */
function bunfigReleaseAge(text: string): number | undefined {
  let table = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      table = header[1] ?? "";
      continue;
    }
    const match =
      table === "install"
        ? /^minimumReleaseAge\s*=\s*([\d_]+)$/.exec(line)
        : table === ""
          ? /^install\.minimumReleaseAge\s*=\s*([\d_]+)$/.exec(line)
          : null;
    const seconds = match?.[1] ? Number(match[1].replace(/_/g, "")) : Number.NaN;
    if (Number.isFinite(seconds) && seconds > 0) return seconds;
  }
  return undefined;
}

/** Yarn's durations: a number of minutes, or "90m", "12h", "3d", "1w". */
function durationMs(value: unknown): number | undefined {
  if (typeof value === "number") return value > 0 ? value * MINUTE : undefined;
  if (typeof value !== "string") return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(value);
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: MINUTE, h: 60 * MINUTE, d: DAY, w: 7 * DAY }[
    (match[2] ?? "m") as "ms"
  ];
  const ms = Number(match[1]) * unit;
  return ms > 0 ? ms : undefined;
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
