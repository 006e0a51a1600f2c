import { minVersion, parse, validRange } from "semver";

/**
 * What a dependency's spec in package.json points at: a registry range
 * (an npm alias `npm:lib@~3.24.0` is one too, for the package it names), a
 * workspace package (`workspace:`), a local folder (`file:`, `link:`,
 * `portal:`, a path), a pnpm catalog entry (its range in pnpm-workspace.yaml),
 * or something a version bump cannot move (git, URLs, dist-tags, patches),
 * with why.
 */

export type SpecTarget =
  | {
      kind: "registry";
      /** The package on the registry: the alias's target, else the dependency's own name. */
      package: string;
      /** The range inside the spec (`~3.24.0` of `npm:lib@~3.24.0`). */
      range: string;
      alias: boolean;
    }
  | { kind: "workspace" }
  | { kind: "local"; path: string }
  /** pnpm's `catalog:` (the default catalog) or `catalog:<name>`: the range is in pnpm-workspace.yaml. */
  | { kind: "catalog"; catalog: string }
  | { kind: "other"; reason: string };

export function specTarget(name: string, spec: string): SpecTarget {
  const trimmed = spec.trim();
  if (trimmed.startsWith("workspace:")) return { kind: "workspace" };
  const local = /^(?:file|link|portal):(.*)$/.exec(trimmed)?.[1];
  if (local !== undefined) return { kind: "local", path: local };
  if (/^(\.{1,2}\/|\/|~\/)/.test(trimmed)) return { kind: "local", path: trimmed };
  if (trimmed.startsWith("patch:"))
    return {
      kind: "other",
      reason:
        "a yarn patch (patch:): the version is written inside the patch: spec, which dependency bumps do not edit",
    };
  const alias = /^npm:((?:@[^/@\s]+\/)?[^@\s]+)(?:@(.*))?$/.exec(trimmed);
  if (alias?.[1]) {
    const range = alias[2]?.trim() || "*";
    const problem = rangeProblem(range);
    return problem
      ? { kind: "other", reason: `an npm alias without a version range ("${trimmed}")` }
      : { kind: "registry", package: alias[1], range, alias: true };
  }
  const catalog = /^catalog:(.*)$/.exec(trimmed)?.[1];
  if (catalog !== undefined) return { kind: "catalog", catalog: catalog.trim() || "default" };
  const problem = rangeProblem(trimmed);
  return problem
    ? { kind: "other", reason: problem }
    : { kind: "registry", package: name, range: trimmed, alias: false };
}

function rangeProblem(range: string): string | undefined {
  if (/^(git|git\+\w+|github|gitlab|bitbucket|gist|https?):/.test(range))
    return "a git or URL dependency";
  // jsr: (pnpm 10.9, yarn 4.9, bun), yarn's exec:, and whatever protocol comes next.
  const protocol = /^([a-z][a-z0-9+.-]*):/.exec(range)?.[1];
  if (protocol === "jsr")
    return `a JSR package ("${range}"), from jsr.io rather than the npm registry: not bumped here`;
  if (protocol) return `a ${protocol}: dependency ("${range}"), not a registry version range`;
  // GitHub's owner/repo shorthand.
  if (/^[^@\s]+\/[^@\s]+/.test(range)) return "a git or URL dependency";
  if (validRange(range) === null) return `"${range}" is a dist-tag, not a version range`;
  return undefined;
}

/**
 * A settings entry's package name and what follows its `@`: `name`,
 * `name@1.0.0`, `@scope/name@^2` (the scope's own `@` is the name's).
 */
export function splitNameAt(entry: string): { name: string; rest?: string } {
  const at = entry.indexOf("@", entry.startsWith("@") ? 1 : 0);
  return at < 0 ? { name: entry } : { name: entry.slice(0, at), rest: entry.slice(at + 1) };
}

/** The version a range stands for when the lockfile says nothing: its lowest match. */
export function specFloor(range: string): string | undefined {
  try {
    return minVersion(range)?.version;
  } catch {
    return undefined;
  }
}

/** The spec to write for a dependency: the new range, inside its alias when it has one. */
export function withAlias(spec: string, range: string): string {
  const alias = /^(npm:(?:@[^/@\s]+\/)?[^@\s]+)(?:@.*)?$/.exec(spec.trim())?.[1];
  return alias ? `${alias}@${range}` : range;
}

/**
 * The line an npm alias's name states, if any: a major (`react-18`,
 * `prettier-v2`, `lib3`, `@babel-8/core`) or a minor (`@babel/core-7.12`,
 * and `typescript56` for 5.6 when `current` is a 5.6 release: TanStack
 * router keeps typescript56 to typescript59 to type-check against each).
 * A project keeps such an alias to test against that line beside the
 * current one (jest's pretty-format has react-17, react-18 and react-19;
 * babel's preset-env tests on @babel/core 7.12), so bumps past it are never
 * what it wants. An alias named for an older release (`-old`, `-legacy`,
 * `-prev`) keeps the line it has (`older`).
 */
export function aliasNamedLine(
  name: string,
  current?: string,
): { major: number; minor?: number; older?: true } | undefined {
  const own = name.replace(/^@[^/]*\//, "");
  // Named for an older release, whichever (drizzle's drizzle-orm-old, npm:drizzle-orm@^0.27.2,
  // to test migrations from it): it stays on the line it has, a 0.x's minor included.
  const installed = current === undefined ? null : parse(current);
  if (/[-_](old|legacy|prev|previous)$/i.test(own) && installed)
    return installed.major === 0
      ? { major: 0, minor: installed.minor, older: true }
      : { major: installed.major, older: true };
  const minorLine = /(?:[-_]v?|[a-z])(\d+)\.(\d+)$/i.exec(own);
  if (minorLine) return { major: Number(minorLine[1]), minor: Number(minorLine[2]) };
  const scope = /^@[^/]*?[-_.]v?(\d+)\//.exec(name);
  const found = /(?:[-_.]v?|[a-z])(\d+)$/i.exec(own)?.[1] ?? scope?.[1];
  if (found === undefined) return undefined;
  // Major and minor run together: read so only when the major alone is not what is installed.
  if (
    installed &&
    found !== String(installed.major) &&
    found === `${installed.major}${installed.minor}`
  )
    return { major: installed.major, minor: installed.minor };
  return { major: Number(found) };
}

/**
 * The major of `packageName` that a package.json's folder is named for:
 * babel's test/runtime-integration/webpack-3 on webpack 3, react-router's
 * integration/helpers/vite-7-template on vite 7, TanStack query's
 * integrations/react-webpack-4. Such a folder is kept to test that major
 * beside the others, as an alias named for a major is.
 */
export function folderNamedMajor(manifest: string, packageName: string): number | undefined {
  const folder = manifest.split("/").slice(0, -1).at(-1);
  const base = packageName.replace(/^@[^/]*\//, "");
  if (!folder || !base) return undefined;
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const found = new RegExp(`(?:^|[-_.])${escaped}[-_.]?v?(\\d+)(?=$|[-_.])`, "i").exec(folder);
  return found?.[1] === undefined ? undefined : Number(found[1]);
}
