import { validRange } from "semver";
import * as z from "../zod.js";
import { cronProblem, DEFAULT_DEPS_SCHEDULE } from "./plan/schedule.js";

/**
 * The `deps:` section of `.github/patchwright.yml`. The repository config
 * keeps it as an opaque mapping; this module owns its meaning. Keys are
 * snake_case in the file, camelCase in `DepsConfig`.
 */

export const UPDATE_TYPES = ["patch", "minor", "major"] as const;
export type UpdateType = (typeof UPDATE_TYPES)[number];

/** How a bump is written in package.json (Renovate's names, which maintainers know). */
export const RANGE_STRATEGIES = ["auto", "bump", "widen", "pin", "replace"] as const;
export type RangeStrategy = (typeof RANGE_STRATEGIES)[number];

export const DEP_TYPES = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
] as const;
export type DepType = (typeof DEP_TYPES)[number];

const updateTypes = z.array(
  z.enum(UPDATE_TYPES, { error: 'expected "patch", "minor" or "major"' }),
  { error: 'expected a list of update types such as ["patch", "minor"]' },
);

const text = (what: string) =>
  z
    .string({ error: `expected ${what}` })
    .check(z.trim(), z.minLength(1, { error: `expected ${what}, not an empty string` }));

const namePattern = text('a package name or pattern such as "@types/*"');

const semverRange = text('a version range such as ">=2"').check(
  z.refine((r) => validRange(r) !== null, {
    error: 'expected a version range npm understands, such as ">=2" or "1.x"',
  }),
);

const groupSchema = z.strictObject({
  name: text("a group name").check(
    z.refine((name) => /^[\w .@/-]{1,50}$/.test(name), {
      error: "expected a short group name (letters, digits, spaces, . _ - / @)",
    }),
  ),
  /** Package names, `*` globs allowed; a package joins the first group that matches it. */
  patterns: z
    .array(namePattern, { error: "expected a list of package name patterns" })
    .check(z.minLength(1, { error: "expected at least one package name pattern" })),
  update_types: z._default(updateTypes, ["patch", "minor"]),
});

const ignoreSchema = z.union(
  [
    z.pipe(
      namePattern,
      z.transform((name) => ({ name })),
    ),
    z.strictObject({
      name: namePattern,
      versions: z.optional(semverRange),
      update_types: z.optional(updateTypes),
    }),
  ],
  { error: "expected a package name, or a mapping with name and versions or update_types" },
);

export const depsConfigFileSchema = z.strictObject({
  /** false turns scheduled runs off without deleting the section. */
  enabled: z._default(z.boolean({ error: "expected true or false" }), true),
  schedule: z._default(
    z.string({ error: 'expected a cron expression such as "0 6 * * 1"' }).check(
      z.trim(),
      z.superRefine((value, ctx) => {
        const problem = cronProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    ),
    DEFAULT_DEPS_SCHEDULE,
  ),
  update_types: z._default(updateTypes, [...UPDATE_TYPES]),
  /** Days a release must have been public before it is proposed. */
  cooldown_days: z._default(
    z
      .number({ error: "expected a number of days" })
      .check(z.gte(0, { error: "expected a number of days, 0 or more" })),
    3,
  ),
  groups: z._default(z.array(groupSchema, { error: "expected a list of groups" }), []),
  ignore: z._default(z.array(ignoreSchema, { error: "expected a list of packages to ignore" }), []),
  max_open_prs: z._default(z.wholeNumber(1, "expected a whole number above 0"), 5),
  /**
   * Most tries (each an install and the checks) spent finding which updates
   * break a group that fails as a whole; 0 finds none, and such a group,
   * unless the agent fixes it, ships nothing.
   */
  max_bisect_checks: z._default(z.wholeNumber(0, "expected a whole number, 0 or more"), 12),
  /**
   * auto: a library without a lockfile widens (in-range updates are left to
   * the package manager), an application with a lockfile bumps, peer ranges widen.
   */
  range_strategy: z._default(
    z.enum(RANGE_STRATEGIES, { error: `expected one of ${RANGE_STRATEGIES.join(", ")}` }),
    "auto",
  ),
  /** Which package.json sections are bumped. */
  dep_types: z._default(
    z
      .array(z.enum(DEP_TYPES, { error: `expected one of ${DEP_TYPES.join(", ")}` }), {
        error: 'expected a list of sections such as ["dependencies", "devDependencies"]',
      })
      .check(z.minLength(1, { error: "expected at least one dependency type" })),
    [...DEP_TYPES],
  ),
  /** Updates that fix known advisories, found as `npm audit` finds them; false turns them off. */
  security_updates: z._default(z.boolean({ error: "expected true or false" }), true),
  /** Labels put on every bump pull request (security fixes get `security` too). */
  labels: z._default(z.array(text("a label name"), { error: "expected a list of label names" }), [
    "dependencies",
  ]),
  /** Installs the bumped dependencies (default: `npm ci --no-audit --no-fund`, or `npm install` without a lockfile). */
  install: z.optional(text("a shell command")),
  /** Checks the bump; default: the top-level `verify`, else `npm test` when package.json has one. */
  verify: z.optional(z.nullable(text("a shell command"))),
});

export type DepsConfigFile = z.input<typeof depsConfigFileSchema>;

export interface DepsGroupRule {
  name: string;
  patterns: string[];
  updateTypes: UpdateType[];
}

export interface DepsIgnoreRule {
  name: string;
  versions?: string;
  updateTypes?: UpdateType[];
}

export interface DepsConfig {
  enabled: boolean;
  schedule: string;
  updateTypes: UpdateType[];
  cooldownDays: number;
  groups: DepsGroupRule[];
  ignore: DepsIgnoreRule[];
  maxOpenPrs: number;
  /** deps.max_bisect_checks: the tries a failing group's bisect may spend. */
  maxBisectChecks: number;
  rangeStrategy: RangeStrategy;
  depTypes: DepType[];
  securityUpdates: boolean;
  labels: string[];
  /** undefined: `npm ci --no-audit --no-fund` with a lockfile, `npm install --no-package-lock` without one. */
  install?: string;
  /** undefined: not set here (fall back); null: no verification. */
  verify?: string | null;
}

export type DepsConfigResult =
  | { ok: true; config: DepsConfig }
  | { ok: false; problems: string[]; message: string };

/** Parses the raw `deps:` mapping (undefined or null means all defaults). */
export function parseDepsConfig(raw: unknown): DepsConfigResult {
  const parsed = depsConfigFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) => {
      if (issue.code === "unrecognized_keys") {
        return issue.keys.map(
          (key) =>
            `${fieldName([...issue.path, key])}: unknown setting; known: ${knownKeysAt(issue.path)}`,
        );
      }
      return [`${fieldName(issue.path)}: ${issue.message}`];
    });
    return { ok: false, problems, message: problems.join("; ") };
  }
  const file = parsed.data;
  const config: DepsConfig = {
    enabled: file.enabled,
    schedule: file.schedule,
    updateTypes: file.update_types,
    cooldownDays: file.cooldown_days,
    groups: file.groups.map((g) => ({
      name: g.name,
      patterns: g.patterns,
      updateTypes: g.update_types,
    })),
    ignore: file.ignore.map((rule) => ({
      name: rule.name,
      ...("versions" in rule && rule.versions ? { versions: rule.versions } : {}),
      ...("update_types" in rule && rule.update_types ? { updateTypes: rule.update_types } : {}),
    })),
    maxOpenPrs: file.max_open_prs,
    maxBisectChecks: file.max_bisect_checks,
    rangeStrategy: file.range_strategy,
    depTypes: file.dep_types,
    securityUpdates: file.security_updates,
    labels: file.labels,
  };
  if (file.install !== undefined) config.install = file.install;
  if (file.verify !== undefined) config.verify = file.verify;
  return { ok: true, config };
}

function fieldName(path: readonly PropertyKey[]): string {
  return ["deps", ...path]
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`,
    )
    .join("");
}

function knownKeysAt(path: readonly PropertyKey[]): string {
  const keys =
    path.length === 0
      ? Object.keys(depsConfigFileSchema.shape)
      : path[0] === "groups"
        ? Object.keys(groupSchema.shape)
        : ["name", "versions", "update_types"];
  return keys.join(", ");
}

/** Defaults, as a repository without a `deps:` section would get them. */
export function defaultDepsConfig(): DepsConfig {
  const result = parseDepsConfig({});
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

export type DepsSchedule =
  | { enabled: true; schedule: string; config: DepsConfig }
  | { enabled: false; reason: string };

/**
 * What a scheduler needs for one repository: bumps are opt-in (a `deps:`
 * section, even an empty one, turns them on; `enabled: false` turns them
 * off) and run on the section's cron schedule, in UTC.
 */
export function depsScheduleOf(rawDeps: unknown): DepsSchedule {
  if (rawDeps === undefined) {
    return { enabled: false, reason: "no deps: section in .github/patchwright.yml" };
  }
  const parsed = parseDepsConfig(rawDeps);
  if (!parsed.ok) return { enabled: false, reason: parsed.message };
  if (!parsed.config.enabled) return { enabled: false, reason: "deps.enabled is false" };
  return { enabled: true, schedule: parsed.config.schedule, config: parsed.config };
}
