import { minVersion, satisfies, validRange } from "semver";

/**
 * How a dependency is written in package.json, and how to write the bumped
 * one in the same style: `^1.2.3` -> `^2.0.0`, `~1.2.3` -> `~1.2.9`,
 * `1.2.3` -> `1.3.0`. Other ranges are left alone when the new version
 * already satisfies them (only the lockfile moves), and skipped otherwise.
 */

const SIMPLE = /^(\^|~|=|v|)(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;

export type SpecRewrite = { ok: true; spec: string | null } | { ok: false; reason: string };

/** Why a spec is not a registry version range, or null when it is one. */
export function nonRegistryReason(spec: string): string | null {
  const trimmed = spec.trim();
  if (/^(workspace|file|link|portal|patch):/.test(trimmed)) return "a local or workspace package";
  if (trimmed.startsWith("npm:")) return "an npm alias";
  // The version lives in pnpm-workspace.yaml's catalog, which the bump does not edit.
  if (/^catalog:/.test(trimmed))
    return `a pnpm catalog entry ("${trimmed}"): its version is set in pnpm-workspace.yaml, which dependency bumps do not edit`;
  if (/^(\.{1,2}\/|\/|~\/)/.test(trimmed)) return "a local path";
  if (
    /^(git|git\+\w+|github|gitlab|bitbucket|gist|https?):/.test(trimmed) ||
    /^[^@\s]+\/[^@\s]+/.test(trimmed)
  ) {
    return "a git or URL dependency";
  }
  if (validRange(trimmed) === null) return `"${spec}" is a dist-tag, not a version range`;
  return null;
}

/** The version a spec stands for when the lockfile says nothing: its lowest match. */
export function specFloor(spec: string): string | undefined {
  try {
    return minVersion(spec)?.version;
  } catch {
    return undefined;
  }
}

export function rewriteSpec(spec: string, to: string): SpecRewrite {
  const simple = SIMPLE.exec(spec.trim());
  if (simple) {
    const prefix = simple[1] === "v" ? "" : (simple[1] ?? "");
    const next = `${prefix}${to}`;
    return { ok: true, spec: next === spec ? null : next };
  }
  if (satisfies(to, spec)) return { ok: true, spec: null };
  return {
    ok: false,
    reason: `the range "${spec}" does not allow ${to} and is not a plain ^, ~ or exact version to rewrite`,
  };
}
