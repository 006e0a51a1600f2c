import { writeSync } from "node:fs";

// Loaded with --import before the CLI under test: one line at exit with the
// process's peak memory (the parent cannot read a child's rusage), and one
// with its CPU time, steadier than wall time on a shared machine.
process.on("exit", () => {
  const usage = process.resourceUsage();
  writeSync(
    2,
    `\nPEAK_RSS_KB ${usage.maxRSS}\nCPU_MS ${Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000)}\n`,
  );
});
