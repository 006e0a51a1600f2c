import picomatch from "picomatch";
import { gt, major, minor } from "semver";
import type { DepsConfig, UpdateType } from "./config.js";
import type { Update } from "./outdated.js";

/**
 * One pull request per group. A package joins the first configured group
 * whose patterns and update types match it; otherwise minor and patch
 * updates share one default group and every major update gets its own
 * pull request, so one breaking change never holds the safe ones hostage.
 */

export const DEFAULT_GROUP_NAME = "minor and patch";
/** In-range updates that move the lockfile only. */
export const LOCKFILE_GROUP_NAME = "lockfile only";

/** The default group's name says what it can hold: "patch" when only patches are enabled. */
export function defaultGroupName(updateTypes: readonly UpdateType[]): string {
  const kinds = (["minor", "patch"] as const).filter((t) => updateTypes.includes(t));
  return kinds.length === 1 ? (kinds[0] as string) : DEFAULT_GROUP_NAME;
}

export interface UpdateGroup {
  /** Stable across runs: the branch suffix, so the next run finds the same pull request. */
  slug: string;
  name: string;
  /** A single major update rather than a group. */
  single: boolean;
  /** Fixes known advisories: its own pull request, labelled security, past schedule and cooldown. */
  security?: boolean;
  /**
   * Set when a group was split: "as-is" holds the updates that pass without
   * changes, "fixes" those that need the agent's; `other` is the partner's branch.
   */
  split?: { role: "as-is" | "fixes"; other: string };
  updates: Update[];
}

export function groupUpdates(
  updates: readonly Update[],
  config: Pick<DepsConfig, "groups"> & Partial<Pick<DepsConfig, "updateTypes">>,
  links: readonly string[][] = [],
): UpdateGroup[] {
  const configured = config.groups.map((rule) => ({
    rule,
    matches: picomatch(rule.patterns, { dot: true }),
    group: { slug: slugify(rule.name), name: rule.name, single: false, updates: [] as Update[] },
  }));
  const fallbackName = defaultGroupName(config.updateTypes ?? ["patch", "minor", "major"]);
  const fallback: UpdateGroup = {
    slug: slugify(fallbackName),
    name: fallbackName,
    single: false,
    updates: [],
  };
  const lockfileOnly: UpdateGroup = {
    slug: slugify(LOCKFILE_GROUP_NAME),
    name: LOCKFILE_GROUP_NAME,
    single: false,
    updates: [],
  };
  const singles: UpdateGroup[] = [];

  for (const update of updates) {
    const home = configured.find(
      (c) => c.matches(update.name) && c.rule.updateTypes.includes(update.type),
    );
    if (home) home.group.updates.push(update);
    else if (update.type !== "major" && update.locations.every((l) => l.newSpec === null))
      lockfileOnly.updates.push(update);
    else if (update.type !== "major") fallback.updates.push(update);
    else {
      const line =
        major(update.to) === 0
          ? `${major(update.to)}.${minor(update.to)}`
          : String(major(update.to));
      singles.push({
        slug: slugify(`${update.name}-${line}`),
        name: `${update.name} ${line}`,
        single: true,
        updates: [update],
      });
    }
  }
  const groups = mergeLinked(
    [
      ...configured.map((c) => c.group),
      fallback,
      lockfileOnly,
      ...singles.sort((a, b) => a.slug.localeCompare(b.slug)),
    ],
    links,
  );
  return groups
    .map((group) => {
      const updates = newestPerPackage(group.updates);
      return group === fallback
        ? { ...group, updates, name: contentName(updates) }
        : { ...group, updates };
    })
    .filter((group) => group.updates.length > 0);
}

/**
 * The default group is called after what it holds ("patch" when it holds
 * only patches); its slug, the branch, stays the one its enabled types give,
 * so the next run with a new minor updates the same pull request.
 */
function contentName(updates: readonly Update[]): string {
  const held = new Set(updates.map((u) => u.type));
  return defaultGroupName(held.has("major") ? ["minor", "patch"] : [...held]);
}

/**
 * Bumps that only work together (peer ranges) move into one group: a
 * major's own when one of them is a major (it becomes a group named after
 * both), so a breaking change never rides in the minor and patch group;
 * otherwise the first group holding one of them.
 */
function mergeLinked(groups: UpdateGroup[], links: readonly string[][]): UpdateGroup[] {
  for (const names of links) {
    const holding = groups.filter((g) => g.updates.some((u) => names.includes(u.name)));
    const home = holding.find((g) => g.single) ?? holding[0];
    const others = holding.filter((g) => g !== home);
    if (!home || others.length === 0) continue;
    for (const other of others) {
      const moving = other.updates.filter((u) => names.includes(u.name));
      other.updates = other.updates.filter((u) => !names.includes(u.name));
      home.updates.push(...moving);
    }
    if (home.single) {
      home.single = false;
      home.name = home.updates.map((u) => u.name).join(" and ");
      home.slug = slugify(`${home.name}-peers`);
    }
  }
  return groups;
}

/** A group can only move a package once; keep its highest target. */
function newestPerPackage(updates: Update[]): Update[] {
  const byName = new Map<string, Update>();
  for (const update of updates) {
    const seen = byName.get(update.name);
    if (!seen || gt(update.to, seen.to)) byName.set(update.name, update);
  }
  return [...byName.values()];
}

export function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/^@/, "")
      .replace(/[^a-z0-9.]+/g, "-")
      .replace(/\.{2,}/g, ".")
      .replace(/^[-.]+|[-.]+$/g, "")
      .slice(0, 60) || "deps"
  );
}

/** The group's branch: `<prefix>deps/<slug>`, the same on every run. */
export function groupBranch(prefix: string, group: Pick<UpdateGroup, "slug">): string {
  return `${prefix}deps/${group.slug}`;
}

export function groupTitle(group: UpdateGroup): string {
  const [only] = group.updates;
  if (group.security && only) {
    const severities = [...new Set((only.advisories ?? []).map((a) => a.severity))];
    const note = severities.length > 0 ? `security, ${severities.join("/")}` : "security";
    return `Bump ${only.name} from ${only.from} to ${only.to} (${note})`;
  }
  if (group.updates.length === 1 && only)
    return `Bump ${only.name} from ${only.from} to ${only.to}`;
  return `Bump the ${group.name} group: ${group.updates.length} updates`;
}
