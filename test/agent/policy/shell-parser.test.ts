import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { compiled } from "../../helpers/source-build.js";

/**
 * The bash parser is WebAssembly (tree-sitter). V8 would compile its hot
 * functions again with TurboFan in the background, which on Node 24 peaked
 * at ~600 MB and 0.8 s of CPU for a few thousand short commands, because
 * the flag set at run time to stop it (`--liftoff-only`) only works on Node
 * 20 (src/agent/policy/shell-parser.ts). Each Node runs the parser in a
 * process of its own, as the Action (Node 24) and the App (Node 20+) do.
 */

const CHILD = `
const { loadShellParser } = await import(process.argv[1]);
const parser = await loadShellParser();
const commands = ["npm test -- --runInBand", "git status && git diff --stat | head -20",
  "for f in src/*.ts; do echo $f; done", "cat package.json | jq '.scripts'",
  "FOO=bar make -j4 build 2>&1 | tee log.txt"];
for (let i = 0; i < 3000; i++) parser.parse(commands[i % commands.length] + " " + i)?.delete();
// Long enough for a background compile that was started to have run.
await new Promise((done) => setTimeout(done, 1000));
// This process's own peak (VmHWM is reset by exec), not resourceUsage().maxRSS, which
// keeps the peak of the forked copy of its parent (a test worker of a few hundred MB).
const { readFileSync } = await import("node:fs");
const peak = /^VmHWM:\\s*(\\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
console.log(JSON.stringify({ maxRssKb: Number(peak?.[1]) }));
`;

function peakMemory(node: string): number {
  const parser = pathToFileURL(compiled("src/agent/policy/shell-parser.ts")).href;
  const ran = spawnSync(node, ["--input-type=module", "-e", CHILD, parser], {
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(ran.stderr, node).toBe("");
  return (JSON.parse(ran.stdout) as { maxRssKb: number }).maxRssKb;
}

describe("the bash parser", () => {
  it("is not compiled again by TurboFan, on Node 24 and on this Node", () => {
    const node24 = inject("node24");
    if (!node24) throw new Error(`this test runs on Node 24: ${inject("node24Problem")}`);
    for (const node of [node24, process.execPath]) {
      // About 70 MB with Liftoff alone, about 600 MB when TurboFan recompiles the grammar.
      expect(peakMemory(node), node).toBeLessThan(250_000);
    }
  });
});
