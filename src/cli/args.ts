import { parseArgs } from "node:util";
import { modelSpecProblem } from "../agent/model/model-spec.js";
import { ruleProblem } from "../agent/policy/rules.js";
import { parseDuration } from "../config/duration.js";
import { networkPolicy, networkSettingSchema } from "../sandbox/network.js";
import * as z from "../zod.js";
import { failTransform } from "../zod.js";
import { parseFlags } from "./parse-flags.js";
import { UsageError } from "./usage-error.js";

export const DEFAULT_MODEL = "claude-sonnet-5-5";

export const USAGE = `Usage: patchwright run "<task>" [options]
       patchwright deps [--cwd DIR] [--dry-run]   (npm dependency updates; deps --help)
       patchwright worker                         (runs the App's jobs from Redis; worker --help)

Runs the coding agent on a local checkout (--cwd) or on a fresh clone of a repository (--repo).

Options:
  --cwd DIR            directory to work in (default: current directory; not with --repo)
  --model ID           model: a bare Anthropic id, or anthropic/ID, bedrock/ID, vertex/ID,
                       openai/ID (default: the config's model, else ${DEFAULT_MODEL})
  --max-turns N        stop after N model turns (default: 50)
  --max-cost USD       stop once the run has cost this much (default: 5)
  --max-minutes N      stop after N minutes (default: 30)
  --policy PRESET      read-only | default | trusted (default: the config's, else default)
  --allow RULE         extra allow rule, e.g. "run_shell: make*" or an MCP tool such as
                       mcp__tickets__close_ticket (repeatable)
  --deny RULE          extra deny rule, e.g. "edit_file: dist/**" (repeatable)
  --mcp-config FILE    MCP servers from a .mcp.json file ({"mcpServers": {...}}), added to
                       the config's mcp_servers
  --network NET        the network of the agent's commands and verify: off (default),
                       on, public (any public host, not this machine or a private
                       network), or hosts, e.g. registry.npmjs.org,*.github.com
  --transcript FILE    where to write the JSONL transcript
  --json               print events as JSON lines instead of text
  --verbose            also print the last lines of each command's output

Working on a fresh clone (the whole job without GitHub: clone, agent, commits, verify, push):
  --repo URL|PATH      repository to clone into a private workspace
  --base BRANCH        branch to start from (default: the remote's default branch)
  --branch NAME        push to this existing branch instead of a new agent/ branch
  --verify CMD         check command run after the agent, e.g. "npm test"
  --verify-timeout T   how long verify and each setup command may run, e.g. 90s, 15m,
                       1h; a bare number is minutes (default: 15m)
  --setup CMD          command run before the agent, e.g. "npm ci" (repeatable)
  --setup-network NET  the network of the setup commands (default: on)
  --squash             one commit for the whole job instead of one per turn
  --no-push            commit in the workspace only; print the patch
  --cache-dir DIR      where repository mirrors are kept (default: ~/.cache/patchwright)
  -h, --help           show this help
  --version            print the version

Settings: without --repo, .github/patchwright.yml in the directory worked on gives
the model, pricing, policy and mcp_servers; flags take precedence.

Environment, per provider: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) for Anthropic;
AWS_REGION and the AWS credential chain for bedrock/; CLOUD_ML_REGION,
ANTHROPIC_VERTEX_PROJECT_ID and Google Application Default Credentials for vertex/;
OPENAI_API_KEY and/or OPENAI_BASE_URL for openai/.
GITHUB_TOKEN (optional: used only by git to fetch and push over https).
Commits are yours: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, else git config's
user.name and user.email (patchwright when neither is set).
Commands run in a bubblewrap sandbox that sees only the workspace; without
bubblewrap they run unsandboxed, with a warning.`;

const positiveInt = (flag: string) =>
  z.coerce
    .number({ error: `${flag} must be a number` })
    .check(z.int(`${flag} must be a whole number`), z.positive(`${flag} must be above 0`));

/** A string flag that, when given, is not empty. */
const nonEmpty = () => z.string().check(z.minLength(1));

const runArgsSchema = z.object({
  task: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'give the task in quotes, e.g. patchwright run "fix the failing test"'),
    ),
  cwd: nonEmpty(),
  /** Absent: the config's model (see run-command). */
  model: z.optional(
    z.string().check(
      z.minLength(1),
      z.superRefine((model, ctx) => {
        const problem = modelSpecProblem(model);
        if (problem) ctx.addIssue({ code: "custom", message: `--model ${problem}` });
      }),
    ),
  ),
  maxTurns: positiveInt("--max-turns"),
  maxCostUsd: z.coerce
    .number({ error: "--max-cost must be a number" })
    .check(z.positive("--max-cost must be above 0")),
  maxMinutes: z.coerce
    .number({ error: "--max-minutes must be a number" })
    .check(z.positive("--max-minutes must be above 0")),
  /** Absent: the config's preset. */
  policy: z.optional(
    z.enum(["read-only", "default", "trusted"], {
      error: "--policy must be read-only, default or trusted",
    }),
  ),
  mcpConfig: z.optional(nonEmpty()),
  allow: z.array(ruleFlag("--allow")),
  deny: z.array(ruleFlag("--deny")),
  transcript: z.optional(z.string()),
  json: z.boolean(),
  verbose: z.boolean(),
  repo: z.optional(nonEmpty()),
  base: z.optional(nonEmpty()),
  branch: z.optional(nonEmpty()),
  verify: z.optional(nonEmpty()),
  verifyTimeoutSeconds: z.optional(
    z.pipe(
      z.string(),
      z.transform((text: string, ctx) => {
        const seconds = parseDuration(text);
        if (seconds !== null) return seconds;
        return failTransform(
          ctx,
          "--verify-timeout must be a duration such as 90s, 15m or 1h (a bare number is minutes)",
        );
      }),
    ),
  ),
  setup: z.array(nonEmpty()),
  squash: z.boolean(),
  push: z.boolean(),
  cacheDir: z.optional(nonEmpty()),
  network: networkFlag("--network"),
  setupNetwork: networkFlag("--setup-network"),
});

/**
 * A policy rule, checked here so a typo is a usage error before anything
 * runs (exit 2), not a failure once the agent starts.
 */
function ruleFlag(flag: string) {
  return z.string().check(
    z.superRefine((rule, ctx) => {
      const problem = ruleProblem(rule);
      if (problem) ctx.addIssue({ code: "custom", message: `${flag} ${problem}` });
    }),
  );
}

/** off, on, public, or a comma-separated host list, as `network:` takes in the config. */
function networkFlag(flag: string) {
  return z.pipe(
    z.string(),
    z.transform((text: string, ctx) => {
      const setting = text === "on" || text === "off" || text === "public" ? text : text.split(",");
      const parsed = networkSettingSchema.safeParse(setting);
      if (parsed.success) return networkPolicy(parsed.data);
      return failTransform(
        ctx,
        `${flag} must be off, on, public, or a comma-separated list of hosts (e.g. registry.npmjs.org,*.github.com; * for any public host)`,
      );
    }),
  );
}

export type RunArgs = z.infer<typeof runArgsSchema>;

export type Command = { kind: "help" } | { kind: "version" } | { kind: "run"; args: RunArgs };

type RunFlags = ReturnType<typeof parseRunFlags>["values"];

// Flags that only mean something for the job on a fresh clone.
const REPO_ONLY = [
  "base",
  "branch",
  "verify",
  "verify-timeout",
  "cache-dir",
  "setup",
  "setup-network",
  "squash",
  "no-push",
] as const;

export function parseCommand(argv: string[], cwd: string): Command {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help")
    return { kind: "help" };
  if (command === "--version") return { kind: "version" };
  if (command.startsWith("-"))
    throw new UsageError(`unknown option ${command}; see patchwright --help`);
  if (command !== "run")
    throw new UsageError(`unknown command "${command}"; try: patchwright run "<task>"`);

  const { values, positionals } = parseFlags("patchwright", () => parseRunFlags(rest));
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (positionals.length > 1) {
    throw new UsageError(
      `expected one task, got ${positionals.length} words; put the task in quotes`,
    );
  }
  const args = toRunArgs(values, positionals[0] ?? "", cwd);
  if (args.repo && values.cwd !== undefined) {
    throw new UsageError(
      "--cwd and --repo do not go together: --repo works on a fresh clone; drop --cwd",
    );
  }
  const repoOnly = REPO_ONLY.filter((flag) => values[flag] !== undefined);
  if (!args.repo && repoOnly.length > 0) {
    throw new UsageError(`--${repoOnly[0]} works with --repo; add --repo URL|PATH or drop it`);
  }
  return { kind: "run", args };
}

function toRunArgs(values: RunFlags, task: string, cwd: string): RunArgs {
  const result = runArgsSchema.safeParse({
    task,
    cwd: values.cwd ?? cwd,
    model: values.model,
    maxTurns: values["max-turns"] ?? 50,
    maxCostUsd: values["max-cost"] ?? 5,
    maxMinutes: values["max-minutes"] ?? 30,
    policy: values.policy,
    mcpConfig: values["mcp-config"],
    allow: values.allow ?? [],
    deny: values.deny ?? [],
    transcript: values.transcript,
    json: values.json ?? false,
    verbose: values.verbose ?? false,
    repo: values.repo,
    base: values.base,
    branch: values.branch,
    verify: values.verify,
    verifyTimeoutSeconds: values["verify-timeout"],
    setup: values.setup ?? [],
    squash: values.squash ?? false,
    push: !values["no-push"],
    cacheDir: values["cache-dir"],
    network: values.network ?? "off",
    setupNetwork: values["setup-network"] ?? "on",
  });
  if (!result.success) throw new UsageError(result.error.issues[0]?.message ?? "invalid arguments");
  return result.data;
}

function parseRunFlags(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      cwd: { type: "string" },
      model: { type: "string" },
      "max-turns": { type: "string" },
      "max-cost": { type: "string" },
      "max-minutes": { type: "string" },
      policy: { type: "string" },
      "mcp-config": { type: "string" },
      allow: { type: "string", multiple: true },
      deny: { type: "string", multiple: true },
      transcript: { type: "string" },
      json: { type: "boolean" },
      verbose: { type: "boolean" },
      repo: { type: "string" },
      base: { type: "string" },
      branch: { type: "string" },
      verify: { type: "string" },
      "verify-timeout": { type: "string" },
      setup: { type: "string", multiple: true },
      squash: { type: "boolean" },
      "no-push": { type: "boolean" },
      "cache-dir": { type: "string" },
      network: { type: "string" },
      "setup-network": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
}
