import picomatch from "picomatch";
import { major, minor, patch, rcompare } from "semver";
import type { DepsConfig, UpdateType } from "../config.js";
import { type Update, updateType } from "../update.js";
import { addLocation, fromVersions } from "./outdated.js";

/**
 * One pull request per group. A package joins the first configured group
 * whose patterns and update types match it; otherwise minor and patch
 * updates share one default group and every major update gets its own
 * pull request, so one breaking change never holds the safe ones hostage.
 * Majors come in the order they are most likely to be merged (the smallest
 * jump first, then the most used), which is the order they open in under
 * `max_open_prs`.
 */

/** How the majors are ordered, as the plan says it. */
export const MAJOR_ORDER =
  "smallest jump first (fewest breaking versions crossed), then the most used (most package.json files), then by name";

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
  /** When a major's new line first came out (ms), for its family (familyLinks); none without. */
  lineReleased?: (update: Update) => number | undefined,
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
      const line = lineOf(update.to);
      singles.push({
        slug: slugify(`${update.name}-${line}`),
        name: `${update.name} ${line}`,
        single: true,
        updates: [update],
      });
    }
  }
  const groups = mergeLinked(
    [...configured.map((c) => c.group), fallback, lockfileOnly, ...singles.sort(likelyFirst)],
    [
      ...links.map((names) => ({ names })),
      ...(lineReleased
        ? familyLinks(
            singles.flatMap((g) => g.updates),
            lineReleased,
          )
        : []),
    ],
  );
  // The name stays the one the branch has: a title that says "minor" on a
  // branch called minor-and-patch reads as two different pull requests.
  return groups
    .map((group) => ({ ...group, updates: newestPerPackage(group.updates) }))
    .filter((group) => group.updates.length > 0);
}

/** Majors most likely to be merged first: the smallest jump, then the most used, then by name. */
function likelyFirst(a: UpdateGroup, b: UpdateGroup): number {
  const [ua, ub] = [a.updates[0], b.updates[0]];
  if (!ua || !ub) return a.slug.localeCompare(b.slug);
  return (
    breakingSteps(ua) - breakingSteps(ub) || users(ub) - users(ua) || a.slug.localeCompare(b.slug)
  );
}

/** Breaking versions crossed: majors, or minors below 1.0.0 (0.0.x patches), as npm's caret sees them. */
function breakingSteps(update: Update): number {
  const { from, to } = update;
  if (major(from) !== major(to)) return major(to) - major(from);
  if (major(from) === 0 && minor(from) !== minor(to)) return minor(to) - minor(from);
  return major(from) === 0 && minor(from) === 0 ? patch(to) - patch(from) : 0;
}

function users(update: Update): number {
  return new Set(update.locations.map((l) => l.manifest)).size;
}

/**
 * Bumps that only work together (peer ranges, a family's majors) move into
 * one group: a major's own when one of them is a major (it becomes a group
 * named after both, or after the family), so a breaking change never rides
 * in the minor and patch group; otherwise the first group holding one.
 */
function mergeLinked(groups: UpdateGroup[], links: readonly Linked[]): UpdateGroup[] {
  for (const { names, title } of links) {
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
      home.name = title ?? peersName(home.updates);
      home.slug = slugify(title ?? `${home.name.replace(/,/g, "")}-peers`);
    }
  }
  return groups;
}

/**
 * A peer group's name: its packages, "a and b" (and "a and b and c"); past
 * three, the two most used and how many more (redux-toolkit's react hub linked
 * eight, and its title and branch named all of them).
 */
function peersName(updates: readonly Update[]): string {
  const names = [...new Set(updates.map((u) => u.name))];
  if (names.length <= 3) return names.join(" and ");
  const used = (name: string) =>
    Math.max(...updates.filter((u) => u.name === name).map((u) => users(u)));
  const [first, second] = [...names].sort((a, b) => used(b) - used(a) || a.localeCompare(b));
  return `${first}, ${second} and ${names.length - 2} more`;
}

/** Names that move in one pull request: peers (named after their packages) or a family (its title). */
interface Linked {
  names: readonly string[];
  title?: string;
}

/** Repositories that publish unrelated packages: their majors are no family. */
const NO_FAMILY = new Set(["https://github.com/DefinitelyTyped/DefinitelyTyped"]);

/**
 * Majors released together from one repository onto one line (babel 8,
 * Angular 22, an Expo SDK: the first releases of the line no more than a
 * month after one another): one pull request, "the expo/expo 58 group". Each alone meets
 * the others at their old major, and peer ranges link only the packages
 * that declare them (Expo's declare none). Plugins of one repository that
 * reached the same major years apart (@rollup/plugin-json 6 in 2022,
 * @rollup/plugin-replace 6 in 2024) are no family.
 */
function familyLinks(
  majors: readonly Update[],
  lineReleased: (update: Update) => number | undefined,
): Linked[] {
  const families = new Map<string, Array<{ name: string; released: number }>>();
  for (const update of majors) {
    const repository = update.links.repository;
    const released = lineReleased(update);
    if (!repository || NO_FAMILY.has(repository) || released === undefined) continue;
    const key = `${new URL(repository).pathname.replace(/^\/|\.git$/g, "")} ${lineOf(update.to)}`;
    families.set(key, [...(families.get(key) ?? []), { name: update.name, released }]);
  }
  const linked: Linked[] = [];
  for (const [title, members] of families) {
    // Runs of first releases no more than a month after one another.
    let run: string[] = [];
    let last = Number.NEGATIVE_INFINITY;
    const flush = () => {
      if (run.length > 1) linked.push({ names: [...run].sort(), title });
      run = [];
    };
    for (const member of [...members].sort((a, b) => a.released - b.released)) {
      if (member.released - last > RELEASED_TOGETHER_MS) flush();
      run.push(member.name);
      last = member.released;
    }
    flush();
  }
  return linked;
}

/** Expo's SDK 58 came out over five weeks: @expo/config on Sep 18, expo on Sep 29, expo-status-bar on Oct 21. */
const RELEASED_TOGETHER_MS = 30 * 86_400_000;

/** A version's release line as npm's caret sees it: "8", or "0.28" below 1.0.0. */
export function lineOf(version: string): string {
  return major(version) === 0 ? `0.${minor(version)}` : String(major(version));
}

/**
 * A group can only move a dependency of one package.json once: its highest
 * target wins there. Workspaces on different majors of a package each keep
 * their own update (`@types/node` 22.x here, 24.x there).
 */
function newestPerPackage(updates: Update[]): Update[] {
  const taken = new Set<string>();
  const kept = new Map<Update, Update>();
  const newestFirst = [...updates].sort(
    (a, b) => a.name.localeCompare(b.name) || rcompare(a.to, b.to),
  );
  for (const update of newestFirst) {
    const key = (l: Update["locations"][number]) =>
      `${update.name}\0${l.manifest}\0${l.section}\0${l.catalog ?? ""}`;
    const free = update.locations.filter((l) => !taken.has(key(l)));
    for (const location of free) taken.add(key(location));
    if (free.length === update.locations.length) kept.set(update, update);
    else if (free.length > 0) kept.set(update, withLocations(update, free));
  }
  return updates.flatMap((u) => kept.get(u) ?? []);
}

function withLocations(update: Update, locations: Update["locations"]): Update {
  const [first, ...rest] = locations as [Update["locations"][number], ...Update["locations"]];
  const out: Update = {
    ...update,
    from: first.from,
    type: updateType(first.from, update.to),
    locations: [first],
  };
  for (const location of rest) addLocation(out, location);
  return out;
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
    return `Bump ${only.name} from ${fromVersions(only)} to ${only.to} (${note})`;
  }
  if (group.updates.length === 1 && only)
    return `Bump ${only.name} from ${fromVersions(only)} to ${only.to}`;
  return `Bump the ${group.name} group: ${group.updates.length} updates`;
}
