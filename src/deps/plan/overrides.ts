import { intersects, validRange } from "semver";
import { pinnedMajor } from "../managers/index.js";
import type { ManagerName } from "../managers/types.js";
import { asRecord } from "../record.js";
import { splitNameAt } from "./spec.js";

/**
 * The project's overrides: what the package manager installs for a
 * package whatever the manifests declare. npm's `overrides`, pnpm's
 * `overrides` (pnpm-workspace.yaml, or package.json's `pnpm` field before
 * pnpm 11; `resolutions` too), yarn 2+'s `resolutions`, bun's `overrides`
 * and `resolutions`. yarn 1's `resolutions` reach only transitive
 * dependencies (measured with yarn 1.22.22: a direct `^1.1.0` locks 1.1.0
 * under `"**\/fx": "1.0.0"`), so a yarn 1 project's are not read. A bump of a dependency one of them holds changes a range
 * the tool then replaces: nothing new is installed (the job's lockfile
 * check would drop it), and npm refuses the install outright (EOVERRIDE:
 * a direct dependency that conflicts with its override). So the plan
 * leaves such a dependency out and names the override to change.
 *
 * Only the overrides that apply to the project's own dependencies are
 * read: a package's name anywhere (yarn's `**\/name`), or with a version
 * selector (`name@22`, pnpm and npm; yarn 2+'s `name@npm:^1.0.0`, which
 * holds only what is declared with that range). One under a parent
 * (`parent>name`, `parent/name`, npm's nested objects) reaches only that
 * parent's dependencies.
 */

export interface Override {
  /** The package it holds. */
  name: string;
  /** pnpm's and npm's `name@range`: only dependencies whose range intersects it (pnpm's rule). */
  when?: string;
  /** yarn 2+'s `name@npm:^1.0.0`: only a dependency declared with exactly this range. */
  declared?: string;
  /** The key and value as written, for the reason. */
  key: string;
  value: string;
  /** The file it is written in, from the project's root; its field ("pnpm.overrides"); the keys down to its value. */
  file: "package.json" | "pnpm-workspace.yaml";
  field: string;
  path: string[];
}

export function readOverrides(
  manager: ManagerName,
  manifest: Record<string, unknown>,
  pnpmWorkspace: unknown,
): Override[] {
  const found: Override[] = [];
  const add = (
    file: Override["file"],
    at: string[],
    parse: (key: string) => Selector | undefined,
  ) => {
    const map = asRecord(file === "package.json" ? manifest : pnpmWorkspace);
    const entries = at.reduce((value: unknown, key) => asRecord(value)[key], map);
    const field = at.join(".");
    for (const [key, raw] of Object.entries(asRecord(entries))) {
      // npm's nested form: { "foo": { ".": "1.0.0", "bar": "…" } } holds foo itself with ".".
      const nested = typeof raw !== "string";
      const value = nested ? asRecord(raw)["."] : raw;
      const selector = parse(key);
      if (typeof value === "string" && selector) {
        const path = [...at, key, ...(nested ? ["."] : [])];
        found.push({ ...selector, key, value, file, field, path });
      }
    }
  };
  switch (manager) {
    case "npm":
      add("package.json", ["overrides"], rangeKey);
      break;
    case "pnpm":
      add("pnpm-workspace.yaml", ["overrides"], rangeKey);
      // pnpm 11 reads no settings from package.json's `pnpm` field.
      if ((pinnedMajor(manifest.packageManager, "pnpm") ?? 10) < 11)
        add("package.json", ["pnpm", "overrides"], rangeKey);
      add("package.json", ["resolutions"], yarnKey);
      break;
    case "yarn-berry":
      add("package.json", ["resolutions"], yarnKey);
      break;
    case "yarn-classic":
      break;
    case "bun":
      add("package.json", ["overrides"], plainKey);
      add("package.json", ["resolutions"], yarnKey);
      break;
  }
  return found;
}

/** What is read of a dependency (project.ts's DepEntry, which imports this module). */
interface Declared {
  name: string;
  spec: string;
  section: string;
  catalog?: string | undefined;
}

/** The override that decides what is installed for `entry`, or undefined. */
export function overrideOf(
  overrides: readonly Override[],
  entry: Declared,
  range: string,
): Override | undefined {
  // A peer range is what the package asks of its users, whatever is installed here.
  if (entry.section === "peerDependencies") return undefined;
  return overrides.find((o) => {
    if (o.name !== entry.name) return false;
    if (o.declared !== undefined && o.declared !== entry.spec.replace(/^npm:/, "")) return false;
    if (o.when !== undefined && !intersecting(o.when, range)) return false;
    // A reference to the dependency's own spec (npm's, pnpm's and bun's `$name`) holds nothing.
    if (o.value === `$${entry.name}`) return false;
    // pnpm's `catalog:` holds the package at the catalog's entry: that entry itself is free.
    const catalog = /^catalog:(.*)$/.exec(o.value);
    if (catalog && entry.catalog === (catalog[1]?.trim() || "default")) return false;
    return true;
  });
}

/** A dependency an override holds: left out of the bumps, with the override named. */
export interface HeldDependency {
  entry: { name: string; manifest: string; section: string };
  current: string;
  /** The registry package (an alias's target). */
  package: string;
  override: Override;
}

/** The reason a held dependency is left out. */
export function heldReason(override: Override): string {
  const what =
    override.value === "-"
      ? "removes it"
      : override.value.startsWith("patch:")
        ? "installs a patched copy; a bump past the patched range would drop the patch"
        : override.value.startsWith("catalog:")
          ? "installs the catalog's entry, which is not defined"
          : `installs ${JSON.stringify(override.value)} whatever the manifest says`;
  return `held by ${override.file} ${override.field} (${JSON.stringify(override.key)}: ${JSON.stringify(override.value)}): the package manager ${what}; change the override to update it`;
}

type Selector = Pick<Override, "name" | "when" | "declared">;

/** `name` or `name@range` (pnpm, npm); `a>b` reaches only a's dependencies. */
function rangeKey(key: string): Selector | undefined {
  if (key.includes(">")) return undefined;
  const { name, rest } = splitNameAt(key);
  if (rest === undefined) return { name };
  return validRange(rest) ? { name, when: rest } : undefined;
}

/** bun's keys: a package's name. */
function plainKey(key: string): Selector | undefined {
  const { name, rest } = splitNameAt(key);
  return rest === undefined && isPackageName(name) ? { name } : undefined;
}

/** yarn's keys: `name`, `**\/name`, yarn 2+'s `name@range` descriptor; `parent/name` is a parent's. */
function yarnKey(key: string): Selector | undefined {
  const bare = key.replace(/^\*\*\//, "");
  const { name, rest } = splitNameAt(bare);
  if (!isPackageName(name)) return undefined;
  if (rest === undefined) return { name };
  return { name, declared: rest.replace(/^npm:/, "") };
}

/** `name` or `@scope/name`; more slashes make a path through parents. */
function isPackageName(name: string): boolean {
  return name.split("/").length === (name.startsWith("@") ? 2 : 1);
}

function intersecting(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return validRange(a) !== null && validRange(b) !== null && intersects(a, b);
  } catch {
    return false;
  }
}
