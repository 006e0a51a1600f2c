import { readCheckoutFactsAhead } from "../agent/checkout-facts.js";
import { buildShellEnv } from "../agent/tools/shell-env.js";
import type { GitToken } from "../git/credentials.js";
import { splitCredentials } from "../git/credentials.js";
import type { StartedPrefetch } from "./repository.js";
import type { JobServices } from "./services.js";

// Apart from repository.ts: the Action's early fetch (action/early-fetch.ts)
// imports that before the rest of the bundle loads, and the shell's
// environment brings the secret detector (secretlint's rules) with it.

/**
 * Once the prefetch has fetched, reads what a new branch from `baseBranch` would
 * show the agent's first request (agent/checkout-facts.ts), while the
 * caller's API calls decide the job: that request then waits for no git
 * call. Fire and forget: a job on another commit reads its own.
 */
export function readBaseFactsAhead(
  services: Pick<JobServices, "envSource">,
  prefetched: Pick<StartedPrefetch, "cloneUrl" | "objects">,
  input: { token?: GitToken | undefined; baseBranch: string },
): void {
  const { url } = splitCredentials(prefetched.cloneUrl);
  void prefetched.objects.then((gitDir) =>
    gitDir === null
      ? undefined
      : readCheckoutFactsAhead({
          gitDir,
          ref: `refs/remotes/origin/${input.baseBranch}`,
          // As the job's session and its workspace read them (change/early-turn.ts).
          env: buildShellEnv(services.envSource),
          blobs: {
            env: services.envSource,
            ...(input.token ? { auth: { url, token: input.token } } : {}),
          },
        }),
  );
}
