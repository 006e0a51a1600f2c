import { posix } from "node:path";
import { parse as parseIni } from "ini";
import { parse as parseYaml } from "yaml";
import type { NetChange } from "../../agent/file-history.js";
import { bunfigNumber, bunfigStrings, durationMs } from "../plan/release-age.js";
import { asRecord } from "../record.js";

/**
 * What a fix loosens of the project's dependency safeguards: an install
 * script approved (npm's `allowScripts`, pnpm's `allowBuilds` and
 * `onlyBuiltDependencies`, bun's `trustedDependencies`), a package let past
 * a release-age gate or pnpm's trust policy (`minimumReleaseAgeExclude`,
 * `trustPolicyExclude`, yarn's `npmPreapprovedPackages`, bun's
 * `minimumReleaseAgeExcludes`), or a gate lowered or turned off. The fix
 * agent is told never to (fix/rules.ts): each is the maintainer's review,
 * and each is what an agent reaches for when a tool refuses a package (pnpm
 * 11 fails an install on an unreviewed build, pnpm on a trust downgrade or
 * a release too young). A fix that does it anyway is said at the top of the
 * pull request's warnings.
 */
export function safeguardsLoosened(changes: readonly NetChange[]): string[] {
  const found: string[] = [];
  for (const change of changes) {
    const read = READERS[posix.basename(change.path)];
    if (!read) continue;
    const [before, after] = [read(text(change.before)), read(text(change.after))];
    for (const [setting, entries] of after.lists) {
      const had = before.lists.get(setting) ?? new Set<string>();
      for (const entry of entries)
        if (!had.has(entry)) found.push(`\`${entry}\` (${change.path} ${setting})`);
    }
    // A gate the fix lowered or took out (with its file, too).
    for (const [setting, was] of before.gates) {
      const now = after.gates.get(setting);
      if (now === undefined || now.level < was.level)
        found.push(
          `${setting} ${now === undefined ? `${was.shown} removed` : `lowered from ${was.shown} to ${now.shown}`} (${change.path})`,
        );
    }
  }
  return found;
}

interface Settings {
  /** Per setting, the entries that approve or exempt. */
  lists: Map<string, Set<string>>;
  /** Per setting, how strict its gate is (higher is stricter) and how it is written. */
  gates: Map<string, { level: number; shown: string }>;
}

const READERS: Record<string, (text: string | null) => Settings> = {
  "package.json": (t) => {
    const doc = asRecord(safe(() => JSON.parse(t ?? "{}")));
    const pnpm = asRecord(doc.pnpm);
    return settings({
      allowScripts: approved(doc.allowScripts),
      "pnpm.allowBuilds": approved(pnpm.allowBuilds),
      "pnpm.onlyBuiltDependencies": listed(pnpm.onlyBuiltDependencies),
      trustedDependencies: listed(doc.trustedDependencies),
    });
  },
  "pnpm-workspace.yaml": (t) => {
    const doc = asRecord(safe(() => parseYaml(t ?? "")));
    const age = Number(doc.minimumReleaseAge);
    return settings(
      {
        allowBuilds: approved(doc.allowBuilds),
        onlyBuiltDependencies: listed(doc.onlyBuiltDependencies),
        dangerouslyAllowAllBuilds: doc.dangerouslyAllowAllBuilds === true ? ["every package"] : [],
        minimumReleaseAgeExclude: listed(doc.minimumReleaseAgeExclude),
        trustPolicyExclude: listed(doc.trustPolicyExclude),
      },
      {
        minimumReleaseAge: age > 0 ? { level: age, shown: String(age) } : undefined,
        trustPolicy:
          doc.trustPolicy === "no-downgrade" ? { level: 1, shown: "no-downgrade" } : undefined,
      },
    );
  },
  ".yarnrc.yml": (t) => {
    const doc = asRecord(safe(() => parseYaml(t ?? "")));
    const gate = durationMs(doc.npmMinimalAgeGate, true);
    return settings(
      { npmPreapprovedPackages: listed(doc.npmPreapprovedPackages) },
      {
        npmMinimalAgeGate:
          gate === undefined ? undefined : { level: gate, shown: String(doc.npmMinimalAgeGate) },
      },
    );
  },
  "bunfig.toml": (t) => {
    const age = bunfigNumber(t ?? "", "minimumReleaseAge");
    return settings(
      { minimumReleaseAgeExcludes: bunfigStrings(t ?? "", "minimumReleaseAgeExcludes") },
      { minimumReleaseAge: age ? { level: age, shown: String(age) } : undefined },
    );
  },
  ".npmrc": (t) => {
    const doc = asRecord(safe(() => parseIni(t ?? "")));
    const gate = (key: string) => {
      const value = Number(doc[key]);
      return value > 0 ? { level: value, shown: String(value) } : undefined;
    };
    return settings(
      {},
      {
        "min-release-age": gate("min-release-age"),
        "minimum-release-age": gate("minimum-release-age"),
      },
    );
  },
};

function settings(
  lists: Record<string, string[]>,
  gates: Record<string, { level: number; shown: string } | undefined> = {},
): Settings {
  return {
    lists: new Map(
      Object.entries(lists)
        .filter(([, entries]) => entries.length > 0)
        .map(([setting, entries]) => [setting, new Set(entries)]),
    ),
    gates: new Map(
      Object.entries(gates).flatMap(([setting, gate]) => (gate ? [[setting, gate] as const] : [])),
    ),
  };
}

/** The keys an approval map sets to true (`allowScripts`, `allowBuilds`). */
function approved(value: unknown): string[] {
  const map = asRecord(value);
  return Object.keys(map).filter((k) => map[k] === true);
}

function listed(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function text(bytes: Buffer | null): string | null {
  return bytes === null ? null : bytes.toString("utf8");
}

function safe(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}
