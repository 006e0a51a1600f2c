import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parseConfig } from "../config/parse.js";
import { DEFAULT_CONFIG_PATH, defaultConfig, type RepoConfig } from "../config/schema.js";
import { parseDepsConfig } from "../deps/config.js";
import { planDepsUpdates } from "../deps/plan/plan.js";
import { renderDepsPlan } from "../deps/plan/render-plan.js";
import type { RegistryStats } from "../deps/registry/registry.js";
import type { CliIo } from "./cli-io.js";
import { isDirectory } from "./local-paths.js";
import { parseFlags } from "./parse-flags.js";
import { UsageError } from "./usage-error.js";
import { readVersion } from "./version.js";

export const DEPS_USAGE = `Usage: patchwright deps [--cwd DIR] [--dry-run] [--json] [--strict]

Finds dependency updates for the npm, pnpm, yarn or bun project in DIR (package.json, its
lockfile, workspaces, .npmrc registries, advisories) and groups them as
.github/patchwright.yml's deps: section says.

Options:
  --cwd DIR          the project (default: current directory)
  --dry-run          print the plan (groups, packages, from -> to, what was left out and why);
                     needs no API key and no GitHub
  --json             print the plan or the result as JSON (a plan with "timing": its time,
                     peak memory, packuments fetched)
  --strict           exit 3 when a check could not run (the plan's warnings, such as the
                     registry's security advisories); without it they are warnings, exit 0
  --cache-dir DIR    where repository mirrors are kept (default: ~/.cache/patchwright)
  -h, --help         show this help
  --version          print the version

Without --dry-run each group is applied on a fresh clone of DIR, installed and verified; the
agent fixes what broke (the config's model: ANTHROPIC_API_KEY for Anthropic, or the provider's
settings) and each group's branch (agent/deps/<group>) is pushed back to DIR, committed as you
(GIT_AUTHOR_NAME/EMAIL, else git's user.name/email). Nothing is sent to GitHub; with
GITHUB_TOKEN or GH_TOKEN set, the agent also gets the packages' release notes from their
GitHub releases (read only).`;

/** A check the plan needed could not run, and --strict asked for that to fail the run. */
const EXIT_WARNINGS = 3;

/**
 * `patchwright deps`: exit 0 when every group is green (or nothing to do), 1 otherwise;
 * with --strict, 3 when it would be 0 but a check could not run.
 */
export async function runDepsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags("patchwright deps", () => parseDepsFlags(argv));
  if (values.help) {
    io.stdout.write(`${DEPS_USAGE}\n`);
    return 0;
  }
  if (values.version) {
    io.stdout.write(`${await readVersion()}\n`);
    return 0;
  }
  const dir = resolve(io.cwd, values.cwd ?? ".");
  if (!(await isDirectory(dir))) throw new UsageError(`--cwd ${values.cwd}: no such directory`);
  const config = await readLocalConfig(dir);
  const parsed = parseDepsConfig(config.deps);
  if (!parsed.ok) throw new Error(`${DEFAULT_CONFIG_PATH}: ${parsed.message}`);

  if (values["dry-run"]) {
    const started = performance.now();
    const { plan, registry } = await planDepsUpdates({
      dir,
      config: parsed.config,
      env: io.env,
      clock: io.clock,
    });
    io.stdout.write(
      values.json
        ? `${JSON.stringify({ ...plan, timing: planTiming(started, registry.stats?.()) })}\n`
        : `${renderDepsPlan(plan, { now: io.clock.now(), branchPrefix: config.branchPrefix })}\n`,
    );
    return values.strict && plan.warnings.length > 0 ? EXIT_WARNINGS : 0;
  }

  // The groups' machinery (models, sandbox, git) is loaded only for them: a dry run
  // is a plan, and loading it all was a fifth of a monorepo plan's time.
  const { runDepsGroups } = await import("./deps-groups.js");
  const result = await runDepsGroups(io, dir, config, {
    json: values.json === true,
    cacheDir: values["cache-dir"],
  });
  if (result.status !== "done") return 1;
  if (!result.groups.every((g) => g.status === "green")) return 1;
  return values.strict && (result.plan?.warnings.length ?? 0) > 0 ? EXIT_WARNINGS : 0;
}

/** `--json`'s `timing`: what the plan cost, so a slow or heavy one shows where it went. */
export interface PlanTiming {
  /** Since the process started (loading included): what the user waited. */
  ms: number;
  /** The plan alone: project, lockfile, registry, advisories. */
  planMs: number;
  /** The process's peak resident memory so far. */
  peakRssMb: number;
  /** Packument documents fetched (abbreviated and full), for how many package names. */
  packuments?: number;
  abbreviatedPackuments?: number;
  packageNames?: number;
  packumentMb?: number;
}

function planTiming(started: number, stats: RegistryStats | undefined): PlanTiming {
  const now = performance.now();
  return {
    ms: Math.round(now),
    planMs: Math.round(now - started),
    // maxRSS is in kilobytes.
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    ...(stats
      ? {
          packuments: stats.documents,
          abbreviatedPackuments: stats.abbreviated,
          packageNames: stats.names,
          packumentMb: Math.round(stats.bytes / 104_857.6) / 10,
        }
      : {}),
  };
}

async function readLocalConfig(dir: string): Promise<RepoConfig> {
  const text = await readFile(join(dir, DEFAULT_CONFIG_PATH), "utf8").catch(() => undefined);
  if (text === undefined) return defaultConfig();
  const parsed = await parseConfig(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.config;
}

function parseDepsFlags(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: false,
    strict: true,
    options: {
      cwd: { type: "string" },
      "dry-run": { type: "boolean" },
      json: { type: "boolean" },
      "cache-dir": { type: "string" },
      strict: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
}
