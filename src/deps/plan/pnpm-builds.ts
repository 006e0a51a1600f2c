import { valid } from "semver";
import { pinnedMajor } from "../managers/index.js";
import { isRecord } from "../record.js";
import type { ScriptApproval, ScriptPolicy } from "../update.js";
import { type PnpmVersionRule, parsePnpmRule } from "./pnpm-rules.js";

/**
 * pnpm's gate on dependencies' install scripts ("builds"), read as pnpm
 * 10.34 reads it (its builder policy). From pnpm 10 a dependency builds
 * only when `onlyBuiltDependencies` or `allowBuilds` (pnpm-workspace.yaml,
 * or package.json's `pnpm` field) names it: by name, or pinned to exact
 * versions (`esbuild@0.25.0`, `nx@21.6.4 || 21.6.5`, pnpm 10.19 on).
 * `allowBuilds: { x: false }` and `ignoredBuiltDependencies` deny (pnpm no
 * longer warns about them); `neverBuiltDependencies` alone turns the gate
 * around (everything else builds); `dangerouslyAllowAllBuilds` opens it.
 * pnpm before 10 builds everything unless one of the lists is set.
 *
 * pnpm 11 (read in 11.29's source, not run here: it needs Node 22) keeps
 * only `allowBuilds`, in pnpm-workspace.yaml: the other lists and
 * package.json's `pnpm` field are not read, a denial wins over an approval,
 * and an install with an unreviewed build fails (`strictDepBuilds` is on by
 * default). pnpm 12 is taken to read it as 11 does.
 */

/** The settings pnpm reads the gate from. */
const KEYS = [
  "onlyBuiltDependencies",
  "ignoredBuiltDependencies",
  "neverBuiltDependencies",
  "allowBuilds",
  "dangerouslyAllowAllBuilds",
  "onlyBuiltDependenciesFile",
] as const;

type Settings = Partial<Record<(typeof KEYS)[number], unknown>>;

/**
 * The policy of a pnpm project: its root package.json and the parsed
 * pnpm-workspace.yaml beside it (package.json's `pnpm` field wins, as in
 * pnpm). Undefined when every build runs, or when the allow-list lives in a
 * file (`onlyBuiltDependenciesFile`), which is not read: nothing is said
 * rather than a guess.
 */
export function pnpmScriptPolicy(options: {
  manifest: Record<string, unknown>;
  workspace: unknown;
}): ScriptPolicy | undefined {
  if (pnpmMajorOf(options.manifest) >= 11) return allowBuildsPolicy(options.workspace);
  const settings: Settings = { ...pick(options.workspace), ...pick(options.manifest.pnpm) };
  if (settings.dangerouslyAllowAllBuilds === true) return undefined;
  if (settings.onlyBuiltDependenciesFile !== undefined) return undefined;
  const allowBuilds = isRecord(settings.allowBuilds) ? Object.entries(settings.allowBuilds) : [];
  const listed = strings(settings.onlyBuiltDependencies);
  const allowed = [...listed, ...allowBuilds.filter(([, v]) => v === true).map(([k]) => k)];
  const denied = new Set([
    ...strings(settings.ignoredBuiltDependencies),
    ...allowBuilds.filter(([, v]) => v === false).map(([k]) => k),
  ]);
  const never = Array.isArray(settings.neverBuiltDependencies)
    ? strings(settings.neverBuiltDependencies)
    : undefined;
  const allowList = settings.onlyBuiltDependencies !== undefined || allowBuilds.length > 0;
  if (!allowList && never !== undefined) {
    // Everything builds but what is named; an empty list names nothing.
    if (never.length === 0) return undefined;
    const refused = new Set(never);
    return policy(
      (name) => (refused.has(name) ? "denied" : "allowed"),
      () => [],
    );
  }
  if (!allowList && pnpmMajorOf(options.manifest) < 10) return undefined;
  const rules = parseRules(allowed);
  return policy(
    (name, version) => {
      if (matches(rules, name, version)) return "allowed";
      return denied.has(name) ? "denied" : "unreviewed";
    },
    (name) => pinsIn(rules, name),
  );
}

/** pnpm 11's gate: `allowBuilds` alone, a denial first; without it nothing builds. */
function allowBuildsPolicy(workspace: unknown): ScriptPolicy | undefined {
  const settings = pick(workspace);
  if (settings.dangerouslyAllowAllBuilds === true) return undefined;
  const entries = isRecord(settings.allowBuilds) ? Object.entries(settings.allowBuilds) : [];
  const rulesOf = (value: boolean) =>
    parseRules(entries.filter(([, v]) => v === value).map(([entry]) => entry));
  const [allowed, denied] = [rulesOf(true), rulesOf(false)];
  return policy(
    (name, version) =>
      matches(denied, name, version)
        ? "denied"
        : matches(allowed, name, version)
          ? "allowed"
          : "unreviewed",
    (name) => pinsIn(allowed, name),
  );
}

type Rule = PnpmVersionRule;

/** A dependency path (`x@1.0.0(peer@2.0.0)`) is not read: it approves nothing here. */
function parseRules(entries: readonly string[]): Rule[] {
  return entries.flatMap((entry) => {
    const rule = entry.includes("(") ? undefined : parsePnpmRule(entry);
    return rule ? [rule] : [];
  });
}

function matches(rules: readonly Rule[], name: string, version: string): boolean {
  return rules.some(
    (r) => r.name === name && (r.versions.length === 0 || r.versions.includes(version)),
  );
}

/** The entries that approve only some versions of `name`: the pins a bump leaves behind. */
function pinsIn(rules: readonly Rule[], name: string): string[] {
  return rules.filter((r) => r.name === name && r.versions.length > 0).map((r) => r.entry);
}

function policy(
  approval: (name: string, version: string) => ScriptApproval,
  pinsOf: (name: string) => string[],
): ScriptPolicy {
  return { tool: "pnpm", approval, pinsOf };
}

/**
 * The packages pnpm-lock.yaml locks from a registry, by name and version:
 * the `packages:` keys of lockfile v9 (`esbuild@0.25.0`) and v6
 * (`/esbuild@0.25.0`, a peer suffix dropped). Links, tarballs and git
 * sources have no registry version and are left out.
 */
export function lockedPnpmPackages(text: string): Array<{ name: string; version: string }> {
  const found = new Map<string, { name: string; version: string }>();
  let inPackages = false;
  for (const line of text.split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    if (!line.startsWith(" ")) {
      inPackages = line.startsWith("packages:");
      continue;
    }
    if (!inPackages || line.startsWith("   ")) continue;
    const key = /^ {2}(['"]?)(.+)\1:\s*(?:\{\})?$/.exec(line)?.[2];
    if (!key) continue;
    const id = key.replace(/^\//, "").replace(/\(.*$/, "");
    const at = id.lastIndexOf("@");
    if (at <= 0) continue;
    const name = id.slice(0, at);
    const version = id.slice(at + 1);
    if (valid(version) !== version) continue;
    found.set(`${name}@${version}`, { name, version });
  }
  return [...found.values()];
}

function pick(value: unknown): Settings {
  if (!isRecord(value)) return {};
  return Object.fromEntries(KEYS.filter((k) => k in value).map((k) => [k, value[k]]));
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The pnpm major package.json pins; 10 when it pins none. */
function pnpmMajorOf(manifest: Record<string, unknown>): number {
  return pinnedMajor(manifest.packageManager, "pnpm") ?? 10;
}
