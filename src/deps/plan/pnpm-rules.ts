import { valid } from "semver";
import { splitNameAt } from "./spec.js";

/**
 * pnpm's package-version entries, as its settings take them:
 * `name` (every version) or `name@1.0.0 || 1.0.1` (exact versions, pnpm
 * 10.19 on). Read as pnpm 10.34's config-version-policy reads them.
 */

export interface PnpmVersionRule {
  /** The entry as written. */
  entry: string;
  /** A name or, where the setting takes patterns, a pattern (`@astrojs/*`). */
  name: string;
  /** Empty: every version. */
  versions: string[];
}

/**
 * `name` or `name@1.0.0 || 1.0.1`. A version that is not exact makes pnpm
 * refuse the setting (its install fails), so it is left out: it lets
 * nothing through here either.
 */
export function parsePnpmRule(entry: string): PnpmVersionRule | undefined {
  const { name, rest } = splitNameAt(entry);
  if (rest === undefined) return { entry, name, versions: [] };
  const versions = rest.split("||").map((v) => valid(v.trim()));
  if (versions.some((v) => v === null)) return undefined;
  return { entry, name, versions: versions as string[] };
}

/**
 * The settings that exempt packages from a check (`minimumReleaseAgeExclude`,
 * `trustPolicyExclude`): the first entry whose name pattern matches decides,
 * wholly (no versions) or for its versions. Name patterns are pnpm's
 * (@pnpm/matcher): `*` is any run of characters, `/` included, and a lone
 * `!pattern` matches every name but those; a pattern with versions makes
 * pnpm refuse the setting, so it exempts nothing.
 */
export function pnpmExemption(
  entries: readonly string[],
): (name: string, version: string) => boolean {
  // Asked for every version a plan weighs: the entries are compiled once per list.
  const known = compiled.get(entries);
  if (known) return known;
  const rules = entries.flatMap((entry) => {
    const rule = parsePnpmRule(entry);
    if (!rule || (rule.versions.length > 0 && rule.name.includes("*"))) return [];
    return [{ ...rule, matches: namePattern(rule.name) }];
  });
  const exempts = (name: string, version: string) => {
    const rule = rules.find((r) => r.matches(name));
    return rule !== undefined && (rule.versions.length === 0 || rule.versions.includes(version));
  };
  compiled.set(entries, exempts);
  return exempts;
}

const compiled = new WeakMap<readonly string[], (name: string, version: string) => boolean>();

function namePattern(pattern: string): (name: string) => boolean {
  if (pattern.startsWith("!")) {
    const inner = namePattern(pattern.slice(1));
    return (name) => !inner(name);
  }
  if (!pattern.includes("*")) return (name) => name === pattern;
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[|\\{}()[\]^$+?.]/g, "\\$&"))
    .join(".*");
  const regex = new RegExp(`^${source}$`);
  return (name) => regex.test(name);
}
