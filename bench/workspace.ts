import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createGit } from "../src/git/git-client.js";
import { prepareWorkspace, type Workspace } from "../src/git/workspace/workspace.js";
import { median } from "./timing.js";

/**
 * What a job's workspace costs next to a plain `git clone` of a generated
 * repository (20,000 files, 1,000 commits), in rounds, each timing:
 * - the clone (the yardstick, measured in every round beside the rest);
 * - a cold first job (a new cache: the mirror fetched, then its worktree);
 * - a second job while the first still runs: the mirror is warm but the
 *   first job holds the tree; the first job, having written a new tree,
 *   had a spare checked out and parked in the background (spare.ts), which
 *   the second one takes (waiting for it if it is not done);
 * - a third job while those two run: nothing is parked, so it writes a new
 *   worktree (what the second job would cost without the spare);
 * - a job that finds a parked worktree (keepIdle), and its cleanup.
 * Each step is broken down by git's own trace2 events (which git command,
 * and the checkout of the files in it). Every timed tree is created right
 * after a 20,000-file tree was deleted under the same folder, as on a busy
 * worker: on some file systems (ext4 without a journal) creating files right
 * after many were deleted costs far more than on a quiet disk, and the
 * clone and the worktrees must meet the same conditions to be compared.
 * Medians of BENCH_ROUNDS rounds (default 5); percentages are the median of
 * each round's own ratio to its clone.
 */

const FILES = 20_000;
const COMMITS = 1_000;
const FILES_PER_DIR = 100;
const CHANGES_PER_COMMIT = 5;
const SPEC = `files=${FILES} commits=${COMMITS} v1`;

/** Each target: a step's share of a plain clone that it must stay within. */
const TARGETS: Array<{ step: string; label: string; limit: number }> = [
  { step: "second", label: "warm mirror, a second job's worktree", limit: 50 },
  { step: "cold", label: "cold first job (mirror fetch and worktree)", limit: 110 },
  { step: "parked", label: "warm mirror, parked worktree", limit: 10 },
];

const cacheRoot = fileURLToPath(new URL(".cache/workspace/", import.meta.url));
const env = process.env;

/** One timed step of one round: its wall time and its git commands' times. */
interface Sample {
  ms: number;
  parts: Map<string, number>;
}

export async function bench(): Promise<void> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS) || 5);
  const source = await ensureSourceRepo();
  const url = pathToFileURL(source).href;
  const scratch = await mkdtemp(join(cacheRoot, "run-"));
  // Clones and worktrees side by side: the same folder, so the same disk area.
  const workRoot = join(scratch, "work");
  await mkdir(workRoot, { recursive: true });
  const samples = new Map<string, Sample[]>();
  const record = (step: string, sample: Sample) => {
    samples.set(step, [...(samples.get(step) ?? []), sample]);
  };
  let traces = 0;
  const traced = async <T>(fn: (env: NodeJS.ProcessEnv) => Promise<T>) => {
    const file = join(scratch, `trace-${++traces}.json`);
    const start = performance.now();
    const result = await fn({ ...env, GIT_TRACE2_EVENT: file });
    const ms = performance.now() - start;
    return { result, sample: { ms, parts: await readTrace(file) } };
  };
  const timed = async <T>(fn: () => Promise<T>) => {
    const start = performance.now();
    const result = await fn();
    return { result, sample: { ms: performance.now() - start, parts: new Map() } };
  };
  const prepare = (
    cacheDir: string,
    branch: string,
    keepIdle: number,
    stepEnv = env,
    spareMinIndexBytes?: number,
  ) =>
    prepareWorkspace({
      ...(spareMinIndexBytes !== undefined ? { spareMinIndexBytes } : {}),
      cloneUrl: url,
      baseBranch: "main",
      branch,
      createBranch: true,
      cacheDir,
      workRoot,
      env: stepEnv,
      keepIdle,
    });

  try {
    // The last round's cache and its parked tree (which lives in workRoot).
    let previous: string[] = [];
    let cacheDir = "";
    // Not timed: so that the first round's clone also follows a big delete.
    const warmUp = join(workRoot, "warm-up");
    await createGit(scratch, { env }).raw(["clone", "--quiet", url, warmUp]);
    await rm(warmUp, { recursive: true, force: true });
    for (let round = 1; round <= rounds; round++) {
      const clone = join(workRoot, `plain-${round}`);
      const cloned = await traced((stepEnv) =>
        createGit(scratch, { env: stepEnv }).raw(["clone", "--quiet", url, clone]),
      );
      record("clone", cloned.sample);
      await rm(clone, { recursive: true, force: true });

      cacheDir = join(scratch, `cache-${round}`);
      const cold = await traced((stepEnv) => prepare(cacheDir, `agent/first-${round}`, 1, stepEnv));
      record("cold", cold.sample);
      const first: Workspace = cold.result;

      // The last round's cache and parked tree go now, so this tree too is
      // made right after a big delete.
      for (const path of previous) await rm(path, { recursive: true, force: true });
      const second = await traced((stepEnv) =>
        prepare(cacheDir, `agent/second-${round}`, 1, stepEnv),
      );
      record("second", second.sample);
      if (second.result.dir === first.dir) throw new Error("two running jobs share a tree");
      if (second.result.dir !== (await first.spare)) throw new Error("the spare was not taken");
      // No spare after this one: the round's trees stay the bench's own.
      const third = await traced((stepEnv) =>
        prepare(cacheDir, `agent/third-${round}`, 1, stepEnv, Number.POSITIVE_INFINITY),
      );
      record("new", third.sample);

      // The second job ends first: its tree is parked; the first one's, over
      // keepIdle, is removed (the delete the next round's clone follows).
      record("cleanup: scrub and park", (await timed(() => second.result.cleanup())).sample);
      record("cleanup: remove", (await timed(() => first.cleanup())).sample);
      await third.result.cleanup();

      const parked = await traced((stepEnv) =>
        prepare(cacheDir, `agent/parked-${round}`, 1, stepEnv),
      );
      record("parked", parked.sample);
      if (parked.result.dir !== second.result.dir) throw new Error("the parked tree was not used");
      await commitOneFile(parked.result.dir, round);
      record(
        "cleanup: scrub a job's commit and park",
        (await timed(() => parked.result.cleanup())).sample,
      );
      previous = [cacheDir, parked.result.dir];
      console.log(
        `round ${round}/${rounds}: clone ${ms(cloned.sample.ms)}, cold ${ms(cold.sample.ms)}, ` +
          `second job ${ms(second.sample.ms)}, new worktree ${ms(third.sample.ms)}, ` +
          `parked ${ms(parked.sample.ms)}`,
      );
    }

    const moved = await moveUpstream(source);
    try {
      const ws = await timed(() =>
        prepareWorkspace({
          cloneUrl: url,
          baseBranch: moved,
          branch: "agent/bench-moved",
          createBranch: true,
          cacheDir,
          workRoot,
          env,
          keepIdle: 1,
        }),
      );
      record("parked, upstream moved", ws.sample);
      await ws.result.cleanup();
    } finally {
      await createGit(source, { env }).raw(["update-ref", "-d", `refs/heads/${moved}`]);
    }
    printReport(samples, rounds);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const LABELS: Record<string, string> = {
  clone: "plain git clone (the yardstick)",
  cold: "cold first job (new cache)",
  second: "warm mirror, a second job (takes the first's spare)",
  new: "warm mirror, a third job's new worktree (no spare left)",
  parked: "warm mirror, parked worktree",
};

function printReport(samples: Map<string, Sample[]>, rounds: number): void {
  const clones = samples.get("clone") ?? [];
  console.log(
    `\nworkspace benchmark (${FILES} files, ${COMMITS} commits, file://), median of ${rounds} rounds`,
  );
  console.log(`${"step".padEnd(58)}  ${"ms".padStart(8)}  ${"% of clone".padStart(10)}`);
  for (const [step, list] of samples) {
    const pct = step === "clone" ? "" : `${shareOfClone(list, clones).toFixed(1)}%`;
    const label = LABELS[step] ?? step;
    console.log(
      `${label.padEnd(58)}  ${ms(median(list.map((s) => s.ms))).padStart(8)}  ${pct.padStart(10)}`,
    );
    // The checkout inside a command is printed after the commands.
    const parts = [...new Set(list.flatMap((s) => [...s.parts.keys()]))].sort(
      (a, b) => Number(a.startsWith(" ")) - Number(b.startsWith(" ")),
    );
    for (const part of parts) {
      const value = median(list.map((s) => s.parts.get(part) ?? 0));
      console.log(`  ${part.padEnd(56)}  ${ms(value).padStart(8)}`);
    }
  }
  console.log("\ntargets (each round's step against that round's clone):");
  for (const target of TARGETS) {
    const list = samples.get(target.step) ?? [];
    const pct = shareOfClone(list, clones);
    const verdict = pct <= target.limit ? "met" : "NOT met";
    console.log(
      `  ${target.label}: ${pct.toFixed(1)}% of a clone (limit ${target.limit}%): ${verdict}`,
    );
  }
}

/** The median of each round's ratio to that round's clone, in percent. */
function shareOfClone(list: Sample[], clones: Sample[]): number {
  const ratios = list.flatMap((sample, i) => {
    const clone = clones[i] ?? clones[clones.length - 1];
    return clone ? [(sample.ms / clone.ms) * 100] : [];
  });
  return median(ratios);
}

function ms(value: number): string {
  return `${value.toFixed(0)}`;
}

/**
 * What each git command of a step took, from a GIT_TRACE2_EVENT file: the
 * top-level commands by name, the checkout of the files wherever it ran (in
 * `clone`, or in the `reset --hard` that `worktree add` runs), and the time
 * spent outside git (node, the lock, process starts).
 */
async function readTrace(file: string): Promise<Map<string, number>> {
  const text = await readFile(file, "utf8").catch(() => "");
  const names = new Map<string, string>();
  const parts = new Map<string, number>();
  const add = (key: string, value: number) => parts.set(key, (parts.get(key) ?? 0) + value);
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as {
      event: string;
      sid: string;
      argv?: string[];
      t_abs?: number;
      t_rel?: number;
      label?: string;
    };
    if (event.event === "start" && event.argv) {
      const [, command = "?", sub] = event.argv;
      names.set(
        event.sid,
        command === "worktree" && sub ? `git ${command} ${sub}` : `git ${command}`,
      );
    } else if (event.event === "exit" && !event.sid.includes("/")) {
      add(names.get(event.sid) ?? "git ?", (event.t_abs ?? 0) * 1000);
    } else if (event.event === "region_leave" && event.label === "unpack_trees") {
      add("  of which: writing the files (unpack_trees)", (event.t_rel ?? 0) * 1000);
    }
  }
  await rm(file, { force: true });
  return parts;
}

/** What a job leaves behind: a commit on its branch and an untracked file. */
async function commitOneFile(dir: string, round: number): Promise<void> {
  await writeFile(join(dir, "README.md"), `# bench, job ${round}\n`);
  await writeFile(join(dir, "scratch.log"), "untracked\n");
  const git = createGit(dir, { env, extraEnv: bot });
  await git.raw(["commit", "--quiet", "-am", `job ${round}`]);
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
