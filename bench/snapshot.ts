import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildShellEnv } from "../src/agent/tools/shell-env.js";
import { createSnapshotter } from "../src/agent/workspace-snapshot.js";
import { createGit, runGit } from "../src/git/git-client.js";
import { captureWorkspaceTree } from "../src/git/tree/exact-tree.js";
import { timeMedian } from "./timing.js";
import { ensureSourceRepo } from "./workspace.js";

/**
 * What change tracking costs per shell call on the workspace bench's
 * repository (20,000 files): the snapshot taken before and after every
 * `run_shell`, as it was (a fresh copy of the real index each time, which
 * lost git's racy-entry protection) and as it is (one private index that
 * git keeps itself), plus the from-scratch tree the job hashes twice to
 * check its commits against the workspace.
 */

const RUNS = 7;
const cacheRoot = fileURLToPath(new URL(".cache/workspace/", import.meta.url));

export async function bench(): Promise<void> {
  const source = await ensureSourceRepo();
  const scratch = await mkdtemp(join(cacheRoot, "snapshot-"));
  try {
    const root = join(scratch, "ws");
    await createGit(scratch, { env: process.env }).raw([
      "clone",
      "--quiet",
      pathToFileURL(source).href,
      root,
    ]);
    const env = buildShellEnv(process.env);
    const rows: Array<[string, number]> = [];

    const oldIndex = join(scratch, "old-index");
    const oldSnapshot = async () => {
      await copyFile(join(root, ".git", "index"), oldIndex);
      const withIndex = { env, extraEnv: { GIT_INDEX_FILE: oldIndex } };
      await runGit(root, ["add", "-A", "--", "."], withIndex);
      return (await runGit(root, ["write-tree"], withIndex)).trim();
    };
    rows.push([
      "before: one snapshot (copy of the real index)",
      await timeMedian(RUNS, oldSnapshot),
    ]);
    rows.push([
      "before: one shell call (2 snapshots + diff)",
      await timeMedian(RUNS, async () => {
        const before = await oldSnapshot();
        await runGit(root, ["diff-tree", "-r", "-z", before, await oldSnapshot()], { env });
      }),
    ]);

    const snapshotter = await createSnapshotter({ root, env });
    rows.push([
      "after: one snapshot (private index)",
      await timeMedian(RUNS, () => snapshotter.snapshot()),
    ]);
    rows.push([
      "after: one shell call (2 snapshots + diff)",
      await timeMedian(RUNS, async () => {
        const before = await snapshotter.snapshot();
        await snapshotter.diff(before, await snapshotter.snapshot());
      }),
    ]);
    let round = 0;
    rows.push([
      "after: one snapshot, a file edited since",
      await timeMedian(RUNS, async () => {
        await writeFile(join(root, "README.md"), `# bench ${++round}\n`);
        await snapshotter.snapshot();
      }),
    ]);
    await snapshotter.close();
    rows.push([
      "from-scratch workspace tree (twice per job)",
      await timeMedian(RUNS, () => captureWorkspaceTree(root, env)),
    ]);

    const width = Math.max(...rows.map(([label]) => label.length));
    console.log(`\nchange-tracking benchmark (20,000 files; median of ${RUNS})`);
    for (const [label, ms] of rows) {
      console.log(`${label.padEnd(width)}  ${ms.toFixed(1).padStart(8)} ms`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
