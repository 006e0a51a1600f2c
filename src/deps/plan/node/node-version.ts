import { minVersion, satisfies, valid, validRange } from "semver";

/**
 * A Node version as a project writes it, read the way the tools that
 * install Node read it: nvm, fnm and actions/setup-node take `24` (or
 * `v24`, `24.x`) as the newest 24.x release, `24.7` as the newest 24.7.x,
 * `lts/*` as the newest LTS line (by Node's release schedule); an exact version is itself; a range with
 * operators (engines, devEngines) is held to its lowest version.
 */

/** development: a version file or setting; ci: the workflows' lowest; engines: users'; running: this job's. */
export type NodeRole = "development" | "ci" | "engines" | "running";

export interface NodeTarget {
  /** As the plan states it: "24.x", "24.7.0", ">=16.9.0". */
  label: string;
  /**
   * The version a package's engines.node is checked against: the version
   * itself, the floor of a range, or for a release line its newest release
   * (a version no release line reaches, so any floor within the line passes
   * and an upper bound inside it does not).
   */
  version: string;
  /** Where it was read: ".nvmrc", "package.json engines.node". */
  source: string;
  role: NodeRole;
}

/** The LTS lines by codename (nvm's `lts/iron`); the last is the newest this build knows. */
const LTS: Record<string, number> = {
  argon: 4,
  boron: 6,
  carbon: 8,
  dubnium: 10,
  erbium: 12,
  fermium: 14,
  gallium: 16,
  hydrogen: 18,
  iron: 20,
  jod: 22,
  krypton: 24,
};
const NEWEST_NAMED_LTS = Math.max(...Object.values(LTS));

/**
 * The newest LTS line at `now`: an even major is released in April and
 * becomes LTS in October of the year 2013 + major/2 (24 in October 2025, 26
 * in October 2026), so `lts/*` moves on without a new build; a line
 * newer than the codenames known here has no codename for `lts/<name>`.
 */
export function newestLts(now: number): number {
  const date = new Date(now);
  const year = date.getUTCFullYear() - (date.getUTCMonth() >= 9 ? 0 : 1);
  return Math.max(NEWEST_NAMED_LTS, 2 * (year - 2013));
}
/** Past any release of a line: "24.x" is checked as 24.<this>.<this>. */
const LINE_END = 999_999;

/** Parses a version-file line or a workflow's node-version; undefined when it names no Node. */
export function parseNodeVersion(
  text: string,
  now = Date.now(),
): { label: string; version: string; moving?: true } | undefined {
  const raw = text.trim().replace(/^["']|["']$/g, "");
  const alias = /^lts\/(.+)$/i.exec(raw)?.[1]?.toLowerCase();
  // `*` (babel's setup-node) is any version, so the newest: read as 0.0.0 it made
  // every tool that names a Node look too new for the project.
  if (alias !== undefined || /^(node|stable|latest|current|lts|\*|x)$/i.test(raw)) {
    const major =
      alias === undefined || alias === "*" || alias === "latest" ? newestLts(now) : LTS[alias];
    if (major === undefined) return undefined;
    return {
      label: `${major}.x`,
      version: `${major}.${LINE_END}.${LINE_END}`,
      moving: true,
    };
  }
  const cleaned = raw.replace(/^v(?=\d)/i, "");
  const line = /^(\d+)(?:\.(\d+))?(?:\.[x*])?$/i.exec(cleaned);
  if (line) {
    const [, major, minor] = line;
    if (minor === undefined)
      return { label: `${major}.x`, version: `${major}.${LINE_END}.${LINE_END}` };
    return { label: `${major}.${minor}.x`, version: `${major}.${minor}.${LINE_END}` };
  }
  if (valid(cleaned)) return { label: cleaned, version: cleaned };
  if (validRange(cleaned)) {
    const floor = safeFloor(cleaned);
    if (floor) return { label: cleaned, version: floor };
  }
  return undefined;
}

/**
 * A version as actions/setup-node reads its input: a range with operators
 * (what a `node-version-file: package.json` gives from engines.node) is
 * the newest release it allows, not its floor: `>=20` installs the newest
 * Node, taken here as the newest LTS line, `^20.19.0` the newest 20.x.
 */
export function parseSetupNodeVersion(
  text: string,
  now = Date.now(),
): { label: string; version: string; moving?: true } | undefined {
  const parsed = parseNodeVersion(text, now);
  const raw = text.trim().replace(/^["']|["']$/g, "");
  if (!parsed || parsed.label !== raw || !/[<>=^~|\s]/.test(raw)) return parsed;
  for (let major = newestLts(now); major > 0; major--) {
    const newest = `${major}.${LINE_END}.${LINE_END}`;
    if (satisfies(newest, raw)) return { label: `${major}.x`, version: newest };
  }
  return parsed;
}

/** The lowest version a range allows (engines.node ">=16.9" -> 16.9.0). */
export function safeFloor(range: string): string | undefined {
  try {
    return minVersion(range)?.version ?? undefined;
  } catch {
    return undefined;
  }
}

/** How a message names the Node a version was checked against. */
export function describeNode(target: NodeTarget): string {
  if (target.role === "engines") return `${target.source} is ${target.label}`;
  if (target.role === "running")
    return `the Node running this job is ${target.label} (the project names no development Node)`;
  if (target.role === "ci") return `the project's CI runs Node ${target.label} (${target.source})`;
  return `the project develops on Node ${target.label} (${target.source})`;
}
