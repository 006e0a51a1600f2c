import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ToolContext } from "../src/agent/tools/define-tool.js";
import { listFilesTool } from "../src/agent/tools/fs/list-files.js";
import { grepSearchTool } from "../src/agent/tools/grep/grep-search.js";
import { buildShellEnv } from "../src/agent/tools/shell-env.js";
import { unsandboxed } from "../src/sandbox/sandbox.js";
import { timeMedian } from "./timing.js";

const run = promisify(execFile);

const CACHE = join(dirname(fileURLToPath(import.meta.url)), ".cache", "tools-repo-v1");
const TOP_DIRS = 50;
const SUB_DIRS = 25;
const FILES_PER_DIR = 40;
const EXTENSIONS = ["ts", "ts", "js", "md", "json"] as const;
const RUNS = 7;
/** One file in this many carries the rare marker grep_search looks for. */
const MARKER_EVERY = 200;

function fileContent(index: number, ext: string): string {
  const lines = [`// file ${index} (${ext})`, `export const value${index} = ${index};`];
  for (let i = 0; i < 12; i++)
    lines.push(`export function fn${index}_${i}(x: number) { return x * ${i}; }`);
  if (index % MARKER_EVERY === 0) lines.push(`// FIXME(bench-marker): revisit ${index}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Builds the benchmark repository once: 50,000 tracked files written as one
 * commit through `git fast-import` (no per-file `git add`), then checked out,
 * plus some untracked and ignored files so both git paths are exercised.
 */
async function ensureRepo(env: Record<string, string>): Promise<string> {
  const ready = join(CACHE, ".bench-ready");
  if (existsSync(ready)) return realpath(CACHE);
  await rm(CACHE, { recursive: true, force: true });
  await mkdir(CACHE, { recursive: true });
  const git = (...args: string[]) =>
    run("git", args, { cwd: CACHE, env, maxBuffer: 64 * 1024 * 1024 });
  await git("init", "-q", "-b", "main");

  const started = performance.now();
  const importer = spawn("git", ["fast-import", "--quiet"], {
    cwd: CACHE,
    env,
    stdio: ["pipe", "inherit", "inherit"],
  });
  const done = new Promise<void>((resolve, reject) => {
    importer.on("error", reject);
    importer.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)),
    );
  });
  const chunks: string[] = [];
  const paths: string[] = [];
  let index = 0;
  for (let top = 0; top < TOP_DIRS; top++) {
    for (let sub = 0; sub < SUB_DIRS; sub++) {
      for (let f = 0; f < FILES_PER_DIR; f++, index++) {
        const ext = EXTENSIONS[index % EXTENSIONS.length] ?? "ts";
        const data = Buffer.from(fileContent(index, ext));
        chunks.push(`blob\nmark :${index + 1}\ndata ${data.length}\n${data.toString()}\n`);
        paths.push(`packages/p${top}/src/m${sub}/file${f}.${ext}`);
      }
    }
  }
  const gitignore = "dist/\nnode_modules/\n";
  chunks.push(`blob\nmark :${index + 1}\ndata ${gitignore.length}\n${gitignore}\n`);
  chunks.push(
    "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\nbench\n",
  );
  paths.forEach((path, i) => {
    chunks.push(`M 100644 :${i + 1} ${path}\n`);
  });
  chunks.push(`M 100644 :${index + 1} .gitignore\n\n`);
  importer.stdin.end(chunks.join(""));
  await done;
  await git("reset", "-q", "--hard", "main");

  for (let i = 0; i < 200; i++) {
    await writeFile(join(CACHE, `untracked-${i}.ts`), fileContent(i, "ts"));
    await mkdir(join(CACHE, "dist"), { recursive: true });
    await writeFile(join(CACHE, `dist/ignored-${i}.ts`), fileContent(i, "ts"));
    await mkdir(join(CACHE, `node_modules/dep${i}`), { recursive: true });
    await writeFile(join(CACHE, `node_modules/dep${i}/index.ts`), fileContent(i, "ts"));
  }
  await writeFile(ready, "");
  console.log(`generated ${paths.length} files in ${Math.round(performance.now() - started)} ms`);
  return realpath(CACHE);
}

export async function bench(): Promise<void> {
  const env = buildShellEnv(process.env);
  const root = await ensureRepo(env);
  const ctx: ToolContext = {
    root,
    env,
    sandbox: unsandboxed.open({ workspace: root, readOnly: [], network: { kind: "off" } }),
    signal: new AbortController().signal,
    reads: new Map(),
    recordChange: () => undefined,
    trackChanges: async (fn) => ({ value: await fn(), changes: [] }),
  };
  const git = (...args: string[]) =>
    run("git", args, { cwd: root, env, maxBuffer: 256 * 1024 * 1024 });

  const rows: [string, number, number][] = [
    [
      "list_files **/*.ts",
      await timeMedian(RUNS, () => listFilesTool.run({ pattern: "**/*.ts" }, ctx)),
      await timeMedian(RUNS, () =>
        git("ls-files", "-z", "--cached", "--others", "--exclude-standard"),
      ),
    ],
    [
      "grep_search rare (250 hits)",
      await timeMedian(RUNS, () => grepSearchTool.run({ pattern: "FIXME\\(bench-marker\\)" }, ctx)),
      await timeMedian(RUNS, () =>
        git("grep", "-n", "-I", "-E", "--untracked", "-e", "FIXME\\(bench-marker\\)"),
      ),
    ],
    [
      "grep_search no literal (JS)",
      await timeMedian(3, () => grepSearchTool.run({ pattern: "[0-9]{5}" }, ctx)),
      await timeMedian(3, () => git("grep", "-n", "-I", "-E", "--untracked", "-e", "[0-9]{5}")),
    ],
    [
      "grep_search common (capped)",
      await timeMedian(RUNS, () => grepSearchTool.run({ pattern: "value[0-9]+ = " }, ctx)),
      await timeMedian(RUNS, () =>
        git("grep", "-n", "-I", "-E", "--untracked", "-e", "value[0-9]+ = "),
      ),
    ],
  ];

  console.log(`\ntools benchmark: ${root} (median of ${RUNS} runs)`);
  console.log("| operation                    | tool ms | plain git ms | ratio |");
  console.log("|------------------------------|--------:|-------------:|------:|");
  for (const [name, tool, plain] of rows) {
    console.log(
      `| ${name.padEnd(28)} | ${tool.toFixed(1).padStart(7)} | ${plain.toFixed(1).padStart(12)} | ${(tool / plain).toFixed(2).padStart(5)} |`,
    );
  }
}
