import picomatch from "picomatch";
import { lt, satisfies, valid, validRange } from "semver";
import { parse as parseYaml } from "yaml";
import { readWorkspaceText } from "../../sandbox/host-files.js";
import { pinnedMajor, pinnedRelease } from "../managers/index.js";
import type { ManagerName } from "../managers/types.js";
import type { NpmConfig } from "../registry/npmrc.js";
import { pnpmExemption } from "./pnpm-rules.js";
import { splitNameAt } from "./spec.js";

/**
 * The minimum release age the project's package manager enforces: npm's
 * `min-release-age` (days, .npmrc), pnpm's `minimum-release-age` (minutes,
 * .npmrc) or `minimumReleaseAge` (minutes, pnpm-workspace.yaml), yarn's
 * `npmMinimalAgeGate` (.yarnrc.yml, minutes or a duration such as "3d";
 * one day by default from yarn 4.15, per scope under `npmScopes`), bun's
 * `minimumReleaseAge` (bunfig.toml's `[install]`, seconds).
 * A version younger than this is refused by the package manager, so the plan
 * must never propose it, not even as a security fix.
 *
 * Each tool but npm lets some packages through anyway: pnpm's
 * `minimumReleaseAgeExclude` (names, `*` patterns, exact versions), yarn's
 * `npmPreapprovedPackages` (names, globs, `name@range`), bun's
 * `minimumReleaseAgeExcludes` (exact names). A version those exempt answers
 * only to the other tools' gates, if any.
 */

export interface ReleaseAge {
  /** The strictest gate: what the lockfile step asks the tool for. */
  ms: number;
  /** "min-release-age=7 (.npmrc)" */
  source: string;
  /** Every gate found, with what its tool exempts. */
  gates: ReleaseAgeGate[];
}

export interface ReleaseAgeGate {
  ms: number;
  source: string;
  /** yarn's `npmScopes.<scope>.npmMinimalAgeGate`, by scope (no @): it replaces `ms` there. */
  scopes?: Record<string, number>;
  /** The packages the tool lets through whatever their age. */
  exempt?: ReleaseAgeExemption;
}

export interface ReleaseAgeExemption {
  /** "minimumReleaseAgeExclude in pnpm-workspace.yaml" */
  source: string;
  /** The entries as written, read with `syntax`'s rules. */
  entries: string[];
  syntax: "pnpm" | "yarn" | "bun";
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** yarn 4.15 made `npmMinimalAgeGate` default to "1d" (4.10 to 4.14: 0, measured on the published releases). */
const YARN_DEFAULT_GATE = { from: "4.15.0", ms: DAY };
/** pnpm 11.0.0 made `minimumReleaseAge` default to 1440 minutes (its changelog). */
const PNPM_DEFAULT_GATE = { fromMajor: 11, ms: DAY };

/** The gate `name@version` answers to, the strictest of those that do not exempt it; undefined when none. */
export function releaseAgeFor(
  age: ReleaseAge | undefined,
  name: string,
  version: string,
): { ms: number; source: string } | undefined {
  let strictest: { ms: number; source: string } | undefined;
  for (const gate of age?.gates ?? []) {
    if (gate.exempt && exempts(gate.exempt, name, version)) continue;
    const scope = name.startsWith("@") ? name.slice(1, name.indexOf("/")) : undefined;
    const scoped = scope === undefined ? undefined : gate.scopes?.[scope];
    const ms = scoped ?? gate.ms;
    if (ms > 0 && (!strictest || ms > strictest.ms)) {
      const source =
        scoped === undefined ? gate.source : `npmScopes.${scope}.npmMinimalAgeGate in .yarnrc.yml`;
      strictest = { ms, source };
    }
  }
  return strictest;
}

export async function readReleaseAge(
  dir: string,
  npm: Pick<NpmConfig, "options">,
  manager?: { name: ManagerName; pinned?: string | undefined },
): Promise<ReleaseAge | undefined> {
  const gates: ReleaseAgeGate[] = [];
  const days = Number(npm.options["min-release-age"]);
  if (Number.isFinite(days) && days > 0)
    gates.push({ ms: days * DAY, source: `min-release-age=${days} (.npmrc)` });
  const pnpm11 = pnpmDefaultGate(manager);
  // pnpm 11 reads only auth and registry settings from .npmrc.
  const minutes = pnpm11 ? Number.NaN : Number(npm.options["minimum-release-age"]);
  const pnpm = await readYaml(dir, "pnpm-workspace.yaml");
  const pnpmExempt = exemption(
    pnpm?.minimumReleaseAgeExclude,
    "minimumReleaseAgeExclude in pnpm-workspace.yaml",
    "pnpm",
  );
  if (Number.isFinite(minutes) && minutes > 0)
    gates.push({
      ms: minutes * MINUTE,
      source: `minimum-release-age=${minutes} (.npmrc)`,
      ...pnpmExempt,
    });
  const pnpmAge = Number(pnpm?.minimumReleaseAge);
  if (Number.isFinite(pnpmAge) && pnpmAge > 0)
    gates.push({
      ms: pnpmAge * MINUTE,
      source: `minimumReleaseAge: ${pnpmAge} in pnpm-workspace.yaml`,
      ...pnpmExempt,
    });
  else if (pnpm11 && pnpm?.minimumReleaseAge === undefined)
    gates.push({ ...pnpm11, ...pnpmExempt });
  const yarn = await yarnGate(dir, manager);
  if (yarn) gates.push(yarn);
  const bunfig = await readWorkspaceText(dir, "bunfig.toml").catch(() => "");
  const bunAge = bunfigNumber(bunfig, "minimumReleaseAge");
  if (bunAge)
    gates.push({
      ms: bunAge * 1000,
      source: `minimumReleaseAge = ${bunAge} in bunfig.toml [install]`,
      ...exemption(
        bunfigStrings(bunfig, "minimumReleaseAgeExcludes"),
        "minimumReleaseAgeExcludes in bunfig.toml [install]",
        "bun",
      ),
    });
  if (gates.length === 0) return undefined;
  // The strictest is what the lockfile step asks for: every one of them would refuse a younger version.
  const strictest = gates.reduce((best, gate) => (gate.ms > best.ms ? gate : best));
  return { ms: strictest.ms, source: strictest.source, gates };
}

/**
 * pnpm 11's default `minimumReleaseAge` of a day (1440 minutes), when the
 * project pins such a pnpm: its lockfile step refuses a younger version that
 * the plan would otherwise propose (a security fix past the cooldown).
 */
function pnpmDefaultGate(
  manager: { name: ManagerName; pinned?: string | undefined } | undefined,
): { ms: number; source: string } | undefined {
  const release = manager?.name === "pnpm" ? pinnedRelease(manager.pinned) : undefined;
  const major = pinnedMajor(manager?.pinned, "pnpm");
  if (!release || major === undefined || major < PNPM_DEFAULT_GATE.fromMajor) return undefined;
  return {
    ms: PNPM_DEFAULT_GATE.ms,
    source: `pnpm ${release.version}'s default minimumReleaseAge of 1 day`,
  };
}

/**
 * yarn's gate: `npmMinimalAgeGate` in .yarnrc.yml, else yarn 4.15's default
 * of a day when the project pins such a yarn; per-scope values beside it.
 */
async function yarnGate(
  dir: string,
  manager: { name: ManagerName; pinned?: string | undefined } | undefined,
): Promise<ReleaseAgeGate | undefined> {
  const yarn = await readYaml(dir, ".yarnrc.yml");
  const exempt = exemption(
    yarn?.npmPreapprovedPackages,
    "npmPreapprovedPackages in .yarnrc.yml",
    "yarn",
  );
  const scopes: Record<string, number> = {};
  const npmScopes = yarn?.npmScopes;
  if (npmScopes && typeof npmScopes === "object") {
    for (const [scope, settings] of Object.entries(npmScopes as Record<string, unknown>)) {
      const value = (settings as Record<string, unknown> | null)?.npmMinimalAgeGate;
      const ms = value === undefined ? undefined : durationMs(value, true);
      if (ms !== undefined) scopes[scope.replace(/^@/, "")] = ms;
    }
  }
  const withScopes = { ...exempt, ...(Object.keys(scopes).length > 0 ? { scopes } : {}) };
  const gate = yarn?.npmMinimalAgeGate;
  if (gate !== undefined) {
    const ms = durationMs(gate, true);
    // 0 turns the gate off, but for the scopes that set their own.
    if (ms === undefined || (ms === 0 && !Object.values(scopes).some((v) => v > 0)))
      return undefined;
    return { ms, source: `npmMinimalAgeGate: ${String(gate)} in .yarnrc.yml`, ...withScopes };
  }
  const version = manager?.name === "yarn-berry" ? yarnVersion(manager.pinned, yarn) : undefined;
  if (!version || !valid(version) || lt(version, YARN_DEFAULT_GATE.from)) return undefined;
  return {
    ms: YARN_DEFAULT_GATE.ms,
    source: `yarn ${version}'s default npmMinimalAgeGate of 1 day`,
    ...withScopes,
  };
}

/** The yarn that runs: `.yarnrc.yml`'s yarnPath release file wins over package.json's field. */
function yarnVersion(
  pinned: string | undefined,
  yarnrc: Record<string, unknown> | undefined,
): string | undefined {
  const path = typeof yarnrc?.yarnPath === "string" ? yarnrc.yarnPath : undefined;
  const fromPath = path ? /yarn-(\d+\.\d+\.\d+)\.c?js$/.exec(path)?.[1] : undefined;
  if (fromPath) return fromPath;
  const release = pinnedRelease(pinned);
  return release?.tool === "yarn" ? release.version : undefined;
}

function exemption(
  value: unknown,
  source: string,
  syntax: ReleaseAgeExemption["syntax"],
): { exempt?: ReleaseAgeExemption } {
  const entries = Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v !== "")
    : [];
  return entries.length > 0 ? { exempt: { source, entries, syntax } } : {};
}

function exempts(exempt: ReleaseAgeExemption, name: string, version: string): boolean {
  switch (exempt.syntax) {
    case "pnpm":
      return pnpmExemption(exempt.entries)(name, version);
    case "bun":
      return exempt.entries.includes(name);
    case "yarn":
      return exempt.entries.some((entry) => yarnPreapproves(entry, name, version));
  }
}

/**
 * yarn 4.18's rule: the entry is a descriptor (`name`, `name@range`) whose
 * name is the package's or a glob matching it; without a range every version.
 */
function yarnPreapproves(entry: string, name: string, version: string): boolean {
  const { name: pattern, rest } = splitNameAt(entry);
  if (pattern !== name && !picomatch.isMatch(name, pattern)) return false;
  if (rest === undefined) return true;
  const range = validRange(rest);
  return range !== null && satisfies(version, range);
}

async function readYaml(dir: string, file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readWorkspaceText(dir, file).catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = safe(() => parseYaml(text) as unknown);
  return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
}

/**
 * A key of bunfig.toml's `[install]` table (or dotted, `install.key = …`, at
 * the top): the few keys read, so no TOML parser is needed.
 */
function bunfigValue(text: string, key: string): string | undefined {
  let table = "";
  const lines = text.split(/\r?\n/).map((raw) => raw.replace(/\s+#.*$/, "").trim());
  for (const [index, line] of lines.entries()) {
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      table = header[1] ?? "";
      continue;
    }
    const prefix = table === "install" ? "" : table === "" ? "install\\." : undefined;
    if (prefix === undefined) continue;
    const value = new RegExp(`^${prefix}${key}\\s*=\\s*(.+)$`).exec(line)?.[1];
    if (value === undefined) continue;
    // An array may run over several lines, to its closing bracket.
    if (!value.startsWith("[") || value.includes("]")) return value;
    const rest = lines.slice(index + 1);
    const end = rest.findIndex((l) => l.includes("]"));
    return [value, ...rest.slice(0, end < 0 ? rest.length : end + 1)].join(" ");
  }
  return undefined;
}

/** `minimumReleaseAge = 259_200`: seconds. */
export function bunfigNumber(text: string, key: string): number | undefined {
  const value = bunfigValue(text, key);
  const seconds = value && /^[\d_]+$/.test(value) ? Number(value.replace(/_/g, "")) : Number.NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** `minimumReleaseAgeExcludes = ["a", "@b/c"]`, on one line or several. */
export function bunfigStrings(text: string, key: string): string[] {
  const value = bunfigValue(text, key);
  if (!value?.startsWith("[")) return [];
  return [...value.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? "");
}

/**
 * Yarn's durations: a number of minutes, or "90m", "12h", "3d", "1w".
 * Zero turns the gate off: undefined, unless `zero` asks for it (a scope's
 * 0 lifts the gate there).
 */
export function durationMs(value: unknown, zero = false): number | undefined {
  const parsed = (() => {
    if (typeof value === "number") return value * MINUTE;
    if (typeof value !== "string") return undefined;
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(value);
    if (!match) return undefined;
    const unit = { ms: 1, s: 1000, m: MINUTE, h: 60 * MINUTE, d: DAY, w: 7 * DAY }[
      (match[2] ?? "m") as "ms"
    ];
    return Number(match[1]) * unit;
  })();
  if (parsed === undefined || !Number.isFinite(parsed) || parsed < 0) return undefined;
  return parsed > 0 || zero ? parsed : undefined;
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
