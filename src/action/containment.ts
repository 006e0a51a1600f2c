import { homedir } from "node:os";
import type { KnownSecret } from "../git/push/secret-scan.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { secretsInEnv } from "../secrets/patterns.js";
import type { ActionsIo } from "./actions-io.js";
import type { ActionInputs } from "./inputs.js";

/**
 * What keeps a run of the Action contained: the sandbox its repository
 * code runs in, and the secrets that must never leave in a commit.
 */

/**
 * bubblewrap, or (where it cannot start) a launcher that refuses with the
 * fix, unless the workflow set `unsandboxed: true`. The runner's own
 * checkout (actions/checkout leaves a token in it) and our cache stay hidden.
 */
export async function actionSandbox(
  deps: {
    sandbox?: SandboxLauncher | undefined;
    env: Record<string, string | undefined>;
    io: Pick<ActionsIo, "warning" | "info">;
  },
  inputs: ActionInputs,
  cacheDir: string,
): Promise<SandboxLauncher> {
  if (deps.sandbox) return deps.sandbox;
  // Loaded here, when a job first opens a sandbox (run-action.ts): bubblewrap's setup, the
  // host's trust and proxy for it are 30 kB that the way to the first model request need not load.
  const { chooseSandbox } = await import("../sandbox/select.js");
  const choice = await chooseSandbox({
    mode: "service",
    optOut: inputs.unsandboxed,
    optOutName: "the input unsandboxed: true",
    path: deps.env.PATH ?? "",
    home: deps.env.HOME || homedir(),
    // Key files the workflow's environment names (cloud credentials, an npmrc).
    env: deps.env,
    cwd: process.cwd(),
    hidden: [cacheDir, deps.env.GITHUB_WORKSPACE, process.cwd()].filter((path): path is string =>
      Boolean(path),
    ),
  });
  if (choice.warning) deps.io.warning(choice.warning);
  for (const note of choice.notes) deps.io.info(note);
  return choice.launcher;
}

/** What must never leave in a commit: the runner's secrets, the inputs' and the job's token. */
export function actionSecrets(
  env: Record<string, string | undefined>,
  inputs: ActionInputs,
  token: string,
): KnownSecret[] {
  const named: Array<[string, string | undefined]> = [
    ["anthropic_api_key", inputs.anthropicApiKey],
    ["private_key", inputs.app?.privateKey],
    ["github_token", inputs.githubToken],
    ["the job's token", token],
  ];
  return [
    ...secretsInEnv(env),
    ...named.flatMap(([name, value]) => (value ? [{ name, value }] : [])),
  ];
}
