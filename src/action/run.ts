import { useSpawnHelper } from "../spawner.js";
import { loadEagerly, startCompileCache } from "./compile-cache.js";
import { needsEnvProxyRestart, restartWithEnvProxy } from "./env-proxy.js";

/**
 * What of Node's own the early fetch's modules and main's load as they
 * are evaluated (beyond what this file loads): loaded before V8's lazy flag
 * is turned off for those modules (compile-cache.ts loadEagerly).
 * test/action/startup.test.ts fails when a run loads another one then.
 */
const EARLY_BUILTINS = [
  "node:fs/promises",
  "node:http",
  "node:https",
  "node:crypto",
  "node:timers/promises",
];
const MAIN_BUILTINS = ["node:dns/promises"];

function loadBuiltins(names: readonly string[]): void {
  for (const name of names) process.getBuiltinModule(name);
}

if (needsEnvProxyRestart(process.env, process.execArgv, process.versions.node)) {
  // The step's proxy is honoured only by a Node started with NODE_USE_ENV_PROXY=1 (env-proxy.ts).
  process.exitCode = await restartWithEnvProxy(process.env);
} else {
  await run();
}

async function run(): Promise<void> {
  // First, so that every module after it is compiled once per machine, not once per run
  // (hence the imports below are dynamic: a static one would load before this line;
  // spawner.ts and env-proxy.ts, the static imports, are a few lines).
  const cache = startCompileCache(process.env);
  // Git starts from this process, not from a helper (spawner.ts): the helper's
  // own start takes a core from the way to the agent's first request, and a run
  // is one job (measured on 2 cores: 38 ms later to the first request).
  useSpawnHelper(false);
  // git fetches the repository while the rest of the bundle loads (early-fetch.ts);
  // its first processes start before the loading takes this thread. Its modules
  // are compiled whole too when the cache is on (they run at every start).
  const { readEventPayload, startEarlyFetch, startEarlyReads } = await loadEagerly(
    cache,
    () => import("./early-fetch.js"),
    () => loadBuiltins(EARLY_BUILTINS),
  );
  const payload = readEventPayload(process.env);
  const earlyFetch = startEarlyFetch(process.env, payload);
  // The API reads a comment's or a dispatch's job begins with go out beside it (early-reads.ts).
  const reads = startEarlyReads(process.env, payload);
  // Loading the rest holds this thread for a hundred milliseconds without a turn of the
  // event loop, and Node connects a request's socket and writes the request only on such
  // turns: without this wait the reads left after the loading, not beside it (with each
  // API answer 100 ms away, the first model request came 48-60 ms later).
  await Promise.race([
    Promise.all([earlyFetch?.underway, reads.sent]),
    new Promise((wait) => setTimeout(wait, 250).unref()),
  ]);
  // The job's modules compiled whole when the cache is on (compile-cache.ts), zod
  // among them: zod-jitless.ts is the first to load it, and sets it up before any schema is made.
  const { main } = await loadEagerly(
    cache,
    async () => {
      await import("./zod-jitless.js");
      return import("./main.js");
    },
    () => {
      loadBuiltins(MAIN_BUILTINS);
      // Octokit's user agent reads it, and Node loads its code on that first read.
      void (globalThis as { navigator?: unknown }).navigator;
    },
  );
  await main({ earlyFetch });
}
