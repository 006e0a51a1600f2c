import { useSpawnHelper } from "../spawner.js";
import { startCompileCache } from "./compile-cache.js";

// First, so that every module after it is compiled once per machine, not once per run
// (hence the imports below are dynamic: a static one would load before this line;
// spawner.ts, the one static import, is a few lines).
startCompileCache(process.env);
// Git starts from this process, not from a helper (spawner.ts): the helper's
// own start takes a core from the way to the agent's first request, and a run
// is one job (measured on 2 cores: 38 ms later to the first request).
useSpawnHelper(false);
// git fetches the repository while the rest of the bundle loads (early-fetch.ts);
// its first processes start before the loading takes this thread.
const { startEarlyFetch } = await import("./early-fetch.js");
const earlyFetch = startEarlyFetch(process.env);
await Promise.race([earlyFetch?.underway, new Promise((wait) => setTimeout(wait, 250).unref())]);
// zod without generated parsers, before any schema is made (zod-jitless.ts).
await import("./zod-jitless.js");
await import("./main.js").then(({ main }) => main({ earlyFetch }));
