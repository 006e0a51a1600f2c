import { writeSync } from "node:fs";

// Loaded with --import before the CLI under test: one line at exit with the
// process's peak memory (the parent cannot read a child's rusage).
process.on("exit", () => {
  writeSync(2, `\nPEAK_RSS_KB ${process.resourceUsage().maxRSS}\n`);
});
