#!/usr/bin/env node
import { main } from "./cli/main.js";
import { routeFetchThroughProxy } from "./service/fetch-proxy.js";

// The model's and GitHub's requests through the machine's proxy, if it has one.
await routeFetchThroughProxy(process.env);
const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  clock: Date,
  // Ctrl+C, and SIGTERM (a service manager stopping `patchwright worker`).
  onInterrupt(handler) {
    process.on("SIGINT", handler);
    process.on("SIGTERM", handler);
    return () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    };
  },
});
process.exitCode = code;
