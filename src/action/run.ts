import { startCompileCache } from "./compile-cache.js";

// First, so that every module after it is compiled once per machine, not once per run.
startCompileCache(process.env);
await import("./main.js").then(({ main }) => main());
