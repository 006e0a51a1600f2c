/**
 * Runs the benchmarks and prints their numbers: `npm run bench` for all,
 * `npm run bench -- tools` for one. Benchmarks are scripts, never tests.
 */
const BENCHES: Record<string, () => Promise<{ bench(): Promise<void> }>> = {
  action: () => import("./action.js"),
  "cli-exit": () => import("./cli-exit.js"),
  pages: () => import("./pages.js"),
  deps: () => import("./deps.js"),
  "deps-plan": () => import("./deps-plan.js"),
  packuments: () => import("./packuments.js"),
  queue: () => import("./queue.js"),
  sandbox: () => import("./sandbox.js"),
  secrets: () => import("./secrets.js"),
  snapshot: () => import("./snapshot.js"),
  tools: () => import("./tools.js"),
  workspace: () => import("./workspace.js"),
  suite: () => import("./suite.js"),
};
/** Run only when named: the whole test suite takes minutes. */
const ONLY_WHEN_NAMED = new Set(["suite"]);

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark: ${unknown.join(", ")} (have: ${Object.keys(BENCHES).join(", ")})`,
  );
  process.exit(2);
}
for (const [name, load] of Object.entries(BENCHES)) {
  if (wanted.length > 0 ? !wanted.includes(name) : ONLY_WHEN_NAMED.has(name)) continue;
  console.log(`\n## ${name}`);
  await (await load()).bench();
}
