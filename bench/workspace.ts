import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createGit } from "../src/git/git-client.js";
import { prepareWorkspace } from "../src/git/workspace.js";
import { median } from "./timing.js";

/**
 * How much a warm mirror saves: times a plain `git clone` of a generated
 * repository (20,000 files, 1,000 commits) against prepareWorkspace with a
 * cold cache, a warm mirror (fresh worktree: the checkout still writes every
 * file) and a warm mirror with a parked worktree (keepIdle: only changed
 * files are written). Target: a warm job costs < 10% of a plain clone.
 * The parked rounds commit like a real job, so parking has to reset the
 * tree to the base.
 */

const FILES = 20_000;
const COMMITS = 1_000;
const FILES_PER_DIR = 100;
const CHANGES_PER_COMMIT = 5;
const SPEC = `files=${FILES} commits=${COMMITS} v1`;

const cacheRoot = fileURLToPath(new URL(".cache/workspace/", import.meta.url));
const env = process.env;

export async function bench(): Promise<void> {
  const source = await ensureSourceRepo();
  const url = pathToFileURL(source).href;
  const scratch = await mkdtemp(join(cacheRoot, "run-"));
  try {
    const rows: Array<[string, number]> = [];
    // The yardstick varies most from run to run on a shared machine: a median too.
    const clones: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const target = join(scratch, `plain-${i}`);
      const cloneStart = performance.now();
      await createGit(scratch, { env }).raw(["clone", "--quiet", url, target]);
      clones.push(performance.now() - cloneStart);
      await rm(target, { recursive: true, force: true });
    }
    rows.push(["plain git clone (median of 3)", median(clones)]);
    const cacheDir = join(scratch, "cache");
    const prepare = (branch: string, keepIdle: number, baseBranch = "main") =>
      prepareWorkspace({
        cloneUrl: url,
        baseBranch,
        branch,
        createBranch: true,
        cacheDir,
        env,
        keepIdle,
      });

    const coldStart = performance.now();
    const cold = await prepare("agent/bench-cold", 0);
    rows.push(["prepareWorkspace, cold cache", performance.now() - coldStart]);
    await cold.cleanup();

    const fresh: number[] = [];
    const removal: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const start = performance.now();
      const ws = await prepare(`agent/bench-fresh-${i}`, 0);
      fresh.push(performance.now() - start);
      const cleanStart = performance.now();
      await ws.cleanup();
      removal.push(performance.now() - cleanStart);
    }
    rows.push(["warm mirror, new worktree (median of 3)", median(fresh)]);

    const parked: number[] = [];
    const parking: number[] = [];
    await (await prepare("agent/bench-seed", 1)).cleanup();
    for (let i = 1; i <= 3; i++) {
      const start = performance.now();
      const ws = await prepare(`agent/bench-parked-${i}`, 1);
      parked.push(performance.now() - start);
      await commitOneFile(ws.dir, i);
      const cleanStart = performance.now();
      await ws.cleanup();
      parking.push(performance.now() - cleanStart);
    }
    rows.push(["warm mirror, parked worktree (median of 3)", median(parked)]);

    const moved = await moveUpstream(source);
    try {
      const start = performance.now();
      const ws = await prepare("agent/bench-moved", 1, moved);
      rows.push(["parked worktree, upstream moved", performance.now() - start]);
      await ws.cleanup();
    } finally {
      await createGit(source, { env }).raw(["update-ref", "-d", `refs/heads/${moved}`]);
    }
    rows.push(["cleanup(), remove (median)", median(removal)]);
    rows.push(["cleanup(), scrub and park (median)", median(parking)]);
    printTable(rows);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** What a job leaves behind: a commit on its branch and an untracked file. */
async function commitOneFile(dir: string, round: number): Promise<void> {
  await writeFile(join(dir, "README.md"), `# bench, job ${round}\n`);
  await writeFile(join(dir, "scratch.log"), "untracked\n");
  const git = createGit(dir, { env, extraEnv: bot });
  await git.raw(["commit", "--quiet", "-am", `job ${round}`]);
}

function printTable(rows: Array<[string, number]>): void {
  const plain = rows[0]?.[1] ?? 1;
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\nworkspace benchmark (${FILES} files, ${COMMITS} commits, file://)`);
  console.log(`${"step".padEnd(width)}  ${"ms".padStart(8)}  ${"% of clone".padStart(10)}`);
  for (const [label, ms] of rows) {
    const pct = `${((ms / plain) * 100).toFixed(1)}%`;
    console.log(`${label.padEnd(width)}  ${ms.toFixed(0).padStart(8)}  ${pct.padStart(10)}`);
  }
  for (const [label, ms] of rows.filter(([l]) => l.startsWith("warm mirror"))) {
    const pct = (ms / plain) * 100;
    console.log(`${label}: ${pct.toFixed(1)}% of a plain clone (target < 10%)`);
  }
}

/** A branch one commit ahead of main, so the fetch has real work; removed afterwards. */
async function moveUpstream(source: string): Promise<string> {
  const git = createGit(source, { env });
  const branch = `bench-moved-${process.pid}`;
  const tree = (await git.raw(["rev-parse", "main^{tree}"])).trim();
  const parent = (await git.raw(["rev-parse", "main"])).trim();
  const commit = (
    await createGit(source, {
      env,
      input: "upstream moved\n",
      extraEnv: bot,
    }).raw(["commit-tree", tree, "-p", parent, "-F", "-"])
  ).trim();
  await git.raw(["update-ref", `refs/heads/${branch}`, commit]);
  return branch;
}

const bot = {
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
};

/** Generates the source repository once (git fast-import), reused by later runs. */
export async function ensureSourceRepo(): Promise<string> {
  const dir = join(cacheRoot, "source.git");
  const marker = join(dir, "bench-spec");
  if (existsSync(marker) && (await readFile(marker, "utf8")) === SPEC) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const git = createGit(dir, { env });
  await git.raw(["init", "--bare", "--quiet", "--initial-branch=main"]);
  // Like GitHub, the server answers partial-clone requests.
  await git.raw(["config", "uploadpack.allowFilter", "true"]);
  const start = performance.now();
  await createGit(dir, { env, input: fastImportStream() }).raw(["fast-import", "--quiet"]);
  await git.raw(["gc", "--quiet"]);
  await writeFile(marker, SPEC);
  console.log(`generated ${dir} in ${(performance.now() - start).toFixed(0)} ms`);
  return dir;
}

function fastImportStream(): Buffer {
  const parts: string[] = [];
  let when = 1_700_000_000;
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const path = (i: number) =>
    `src/module-${String(Math.floor(i / FILES_PER_DIR)).padStart(3, "0")}/file-${i % FILES_PER_DIR}.ts`;
  const content = (i: number, version: number) =>
    `// file ${i}, version ${version}\nexport function f${i}(x: number): number {\n  return x * ${version + 1} + ${i};\n}\n`;
  // A small deterministic generator, so every run builds the same history.
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed;
  };
  for (let c = 1; c <= COMMITS; c++) {
    parts.push(
      "commit refs/heads/main\n",
      `committer bench <bench@example.com> ${when++} +0000\n`,
      data(c === 1 ? "initial import" : `change ${c}`),
    );
    if (c === 1) {
      parts.push(`M 100644 inline README.md\n${data("# bench\n")}`);
      for (let i = 0; i < FILES; i++)
        parts.push(`M 100644 inline ${path(i)}\n${data(content(i, 0))}`);
    } else {
      for (let k = 0; k < CHANGES_PER_COMMIT; k++) {
        const i = random() % FILES;
        parts.push(`M 100644 inline ${path(i)}\n${data(content(i, c))}`);
      }
    }
    parts.push("\n");
  }
  return Buffer.from(parts.join(""));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bench();
}
