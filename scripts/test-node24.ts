import { spawn } from "node:child_process";
import { delimiter, dirname } from "node:path";
import { findNode24 } from "../test/helpers/node24.js";

/**
 * The suite on the Node 24 that the Action and the Docker image run, where
 * `npm test` runs the machine's Node (20, the CLI's and the App's oldest):
 * that Node first on the PATH, so vitest, its workers and every node, npm,
 * pnpm and yarn the tests start run on it. Node 23 changed fs.rmSync
 * beneath the mirror's symlink probe (src/git/mirror/bare-init.ts), and only
 * such a run showed it. Arguments go to `vitest run` (files, -t ...).
 */

const node24 = await findNode24();
if (!node24.path) {
  console.error(node24.problem);
  process.exit(2);
}
const child = spawn("npx", ["vitest", "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, PATH: `${dirname(node24.path)}${delimiter}${process.env.PATH ?? ""}` },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
