import { resolve } from "node:path";
import { providerSecrets } from "../agent/model/factory.js";
import { createRedactor } from "../agent/redact.js";
import type { RepoConfig } from "../config/schema.js";
import { renderDepsJobSummary } from "../deps/publish/job-summary.js";
import { releasesFromEnv } from "../deps/registry/releases.js";
import { type DepsJobResult, runDepsJob } from "../deps/run-deps-job.js";
import { jobEvents } from "../kernel/events.js";
import { secretsInEnv } from "../secrets/patterns.js";
import { buildCliModel } from "./build-model.js";
import type { CliIo } from "./cli-io.js";
import { cliSandbox } from "./cli-sandbox.js";
import { createColors } from "./colors.js";
import { watchInterrupts } from "./interrupts.js";
import { toCloneUrl } from "./job-summary.js";
import { createLiveStatus, NO_STATUS } from "./live-status.js";
import { createHumanRenderer } from "./render.js";
import { defaultCacheDir } from "./state-paths.js";
import { createStepReporter } from "./step-progress.js";
import { readUserIdentity } from "./user-identity.js";

/**
 * `patchwright deps` without --dry-run: each group applied on a fresh clone
 * of `dir`, installed, verified, fixed by the agent and pushed back; the
 * summary (or the result as JSON) is printed. Its own module, loaded only
 * for this: a dry run needs none of it.
 */
export async function runDepsGroups(
  io: CliIo,
  dir: string,
  config: RepoConfig,
  options: { json: boolean; cacheDir: string | undefined },
): Promise<DepsJobResult> {
  // A missing key or region is a usage error before any group runs.
  const model = buildCliModel(io, config.model, config.pricing);
  const redact = createRedactor(
    [...providerSecrets(io.env), io.env.GITHUB_TOKEN ?? "", io.env.GH_TOKEN ?? ""].filter(Boolean),
  );
  const identity = await readUserIdentity(io);
  const status = options.json ? NO_STATUS : createLiveStatus(io.stderr, io.clock);
  const controller = new AbortController();
  const interrupts = watchInterrupts(io, status, controller);
  try {
    const cacheDir = resolve(io.cwd, options.cacheDir ?? defaultCacheDir(io.env));
    const result = await runDepsJob(
      {
        cacheDir,
        sandbox: await cliSandbox(io, cacheDir),
        envSource: io.env,
        secrets: secretsInEnv(io.env),
        clock: io.clock,
        signal: controller.signal,
        // Release notes for the agent, when the environment has a GitHub token.
        releases: releasesFromEnv(io.env),
        createModel: (id, settings) =>
          id === config.model ? model : buildCliModel(io, id, settings?.pricing),
      },
      { owner: "local", repo: "local", cloneUrl: toCloneUrl(dir, io.cwd), config, identity },
      jobEvents(
        options.json
          ? {}
          : {
              step: createStepReporter({ write: (text) => io.stderr.write(redact(text)), status }),
              // The agent at work on a broken group, as `patchwright run` shows it: on stderr,
              // where the steps are, so stdout keeps only the summary.
              agent: createHumanRenderer({
                write: (text) => io.stderr.write(redact(text)),
                colors: createColors(io.stderr.isTTY === true && !io.env.NO_COLOR),
                spinner: status,
              }),
            },
      ),
    );
    status.stop();
    if (options.json) io.stdout.write(`${redact(JSON.stringify(result))}\n`);
    else io.stdout.write(`${redact(renderDepsJobSummary(result))}\n`);
    return result;
  } finally {
    status.stop();
    interrupts.unsubscribe();
  }
}
