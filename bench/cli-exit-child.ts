import { writeSync } from "node:fs";

/**
 * `patchwright run` as src/cli.ts runs it, plus one line at exit with the
 * process's peak memory (the parent cannot read a child's rusage).
 */
process.on("exit", () => {
  writeSync(2, `\nPEAK_RSS_KB ${process.resourceUsage().maxRSS}\n`);
});
await import("../src/cli.js");
