import { posix } from "node:path";
import { parse as parseYaml } from "yaml";
import type { NetChange } from "../../agent/file-history.js";

/**
 * The install-script approvals a fix adds: npm's `allowScripts`, pnpm's
 * `allowBuilds` and `onlyBuiltDependencies` (pnpm-workspace.yaml or
 * package.json's `pnpm` field), bun's `trustedDependencies`. The fix agent
 * is told never to approve one (fix/rules.ts): approving a script is the
 * maintainer's review, and under pnpm 11 an unreviewed build fails the
 * install, which an agent may "fix" by approving it. A fix that does it
 * anyway is said at the top of the pull request's warnings.
 */
export function scriptApprovalsAdded(changes: readonly NetChange[]): string[] {
  const found: string[] = [];
  for (const change of changes) {
    const name = posix.basename(change.path);
    if (name !== "package.json" && name !== "pnpm-workspace.yaml") continue;
    const read = name === "package.json" ? readJson : readYaml;
    const [before, after] = [approvals(read(change.before)), approvals(read(change.after))];
    for (const [setting, entries] of after) {
      const had = before.get(setting) ?? new Set<string>();
      for (const entry of entries)
        if (!had.has(entry)) found.push(`\`${entry}\` (${change.path} ${setting})`);
    }
  }
  return found;
}

/** Per setting, the entries that approve a script. */
function approvals(doc: Record<string, unknown>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (setting: string, entries: string[]) => {
    if (entries.length > 0) out.set(setting, new Set(entries));
  };
  const approvedKeys = (value: unknown) =>
    isRecord(value) ? Object.keys(value).filter((k) => value[k] === true) : [];
  const listed = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  const pnpm = isRecord(doc.pnpm) ? doc.pnpm : {};
  add("allowScripts", approvedKeys(doc.allowScripts));
  add("allowBuilds", approvedKeys(doc.allowBuilds));
  add("onlyBuiltDependencies", listed(doc.onlyBuiltDependencies));
  add("pnpm.allowBuilds", approvedKeys(pnpm.allowBuilds));
  add("pnpm.onlyBuiltDependencies", listed(pnpm.onlyBuiltDependencies));
  add("trustedDependencies", listed(doc.trustedDependencies));
  if (doc.dangerouslyAllowAllBuilds === true) add("dangerouslyAllowAllBuilds", ["every package"]);
  return out;
}

function readJson(bytes: Buffer | null): Record<string, unknown> {
  try {
    const value: unknown = bytes ? JSON.parse(bytes.toString("utf8")) : {};
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function readYaml(bytes: Buffer | null): Record<string, unknown> {
  try {
    const value: unknown = bytes ? parseYaml(bytes.toString("utf8")) : {};
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
