import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { createSecretDetector, DETECTOR_RULES } from "../src/secrets/detector.js";
import { type CorpusFile, secretCorpus } from "../test/helpers/secret-corpus.js";
import { allFamilies, secretFamilies } from "../test/helpers/secret-families.js";
import { median, timeMedian } from "./timing.js";

/**
 * The secret detector (issue #23): what loading it costs a process at
 * start, what it costs per MB of text, and its false positives on real
 * files full of secret-shaped text (every minified file and source map in
 * node_modules, the lockfile in three formats, base64 fixtures, git ids,
 * UUIDs). Every find there is a false positive, listed by rule.
 */

const run = promisify(execFile);
const DETECTOR = fileURLToPath(new URL("../src/secrets/detector.ts", import.meta.url));
const LOADS = 9;

/**
 * What a process pays to load the detector, as the CLI, the App and the
 * Action load it (compiled JavaScript, here one esbuild bundle like the
 * Action's): fresh processes, a bare dynamic import subtracted.
 */
async function loadMs(): Promise<{ load: number; first: number; again: number }> {
  const dir = await mkdtemp(join(tmpdir(), "pw-bench-secrets-"));
  try {
    const entry = join(dir, "detector.mjs");
    // Split like the Action's bundle: code behind a dynamic import (node-forge,
    // which secretlint loads only for .p12 files) stays in a chunk of its own.
    await build({
      entryPoints: { detector: DETECTOR },
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      outdir: dir,
      outExtension: { ".js": ".mjs" },
      logLevel: "silent",
    });
    const bare = join(dir, "bare.mjs");
    await writeFile(bare, "export const x = 1;\n");
    const time = async (file: string) => {
      const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
      const times: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        const { stdout } = await run(process.execPath, ["--input-type=module", "-e", code]);
        times.push(Number(stdout.trim()));
      }
      return median(times);
    };
    const load = (await time(entry)) - (await time(bare));
    // Then the short texts a job redacts before its first model request, in a
    // fresh process: the rules' expressions compile on first use (keywords
    // in rule.ts keep most rules off such texts), and again for reference.
    const firstUse = `const { createSecretDetector } = await import(${JSON.stringify(pathToFileURL(entry).href)});
const d = createSecretDetector(); const texts = ${JSON.stringify(SHORT_TEXTS)};
let t = performance.now(); for (const x of texts) d.redact(x); const first = performance.now() - t;
t = performance.now(); for (const x of texts) d.redact(x + " "); console.log(first, performance.now() - t);`;
    const first: number[] = [];
    const again: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", firstUse]);
      const [a, b] = stdout.trim().split(" ").map(Number);
      first.push(a ?? Number.NaN);
      again.push(b ?? Number.NaN);
    }
    return { load, first: median(first), again: median(again) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What a job redacts before its first model request: a thread, its prompt, tool descriptions, a log line. */
const SHORT_TEXTS = [
  "Fix the flaky test in the parser",
  "@agent please fix this, the CI log says the lexer drops the last token of a file",
  "octocat",
  "Working on @octocat's request\n\n<sub>[Job log](https://github.com/octo-org/demo/actions/runs/9001)</sub>",
  "You are a coding agent working non-interactively in a checked-out repository. ".repeat(20),
  "Reads a text file from the workspace and returns its lines numbered. Use offset and limit for long files. ".repeat(
    6,
  ),
  "Runs a shell command with bash in the workspace root and returns its exit code, stdout and stderr. ".repeat(
    6,
  ),
  "npm ERR! code E404 npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-pad-x - Not found",
];

function mb(files: readonly CorpusFile[]): number {
  return files.reduce((sum, file) => sum + file.text.length, 0) / 1e6;
}

export async function bench(): Promise<void> {
  const { load, first, again } = await loadMs();
  console.log(
    `load: importing the detector (secretlint's preset and ours, bundled) takes ${load.toFixed(1)} ms (median of ${LOADS} fresh processes)`,
  );
  console.log(
    `first use: redacting ${SHORT_TEXTS.length} short texts (a thread, a prompt, tool descriptions, a log line) in a fresh process takes ${first.toFixed(1)} ms, then ${again.toFixed(1)} ms the second time`,
  );

  const detector = createSecretDetector();
  const corpus = secretCorpus("large");
  const size = mb(corpus);
  const start = performance.now();
  const found = corpus.flatMap((file) =>
    detector
      .find(file.text)
      .map((m) => ({ file: file.name, rule: m.rule, text: file.text.slice(m.start, m.end) })),
  );
  const ms = performance.now() - start;
  const kinds = [...new Set(corpus.map((f) => f.kind))]
    .map((kind) => `${kind} ${mb(corpus.filter((f) => f.kind === kind)).toFixed(1)} MB`)
    .join(", ");
  console.log(`corpus: ${corpus.length} files, ${size.toFixed(1)} MB (${kinds})`);
  console.log(
    `false positives: ${found.length} in ${size.toFixed(1)} MB; scan ${ms.toFixed(0)} ms = ${(ms / size).toFixed(0)} ms per MB`,
  );
  for (const f of found.slice(0, 20))
    console.log(`  ${f.rule} in ${f.file}: ${f.text.slice(0, 60)}`);

  const log = allFamilies(secretFamilies());
  const tenKb = log.repeat(Math.ceil(10_000 / log.length)).slice(0, 10_000);
  const perCall = await timeMedian(20, async () => detector.redact(tenKb));
  console.log(`a 10 kB tool result full of secrets: ${perCall.toFixed(2)} ms to redact`);

  const text = corpus
    .map((f) => f.text)
    .join("\n")
    .slice(0, 20_000_000);
  const rows = DETECTOR_RULES.map((rule) => {
    const t = performance.now();
    rule.find(text);
    return [rule.id, performance.now() - t] as const;
  }).sort((a, b) => b[1] - a[1]);
  console.log(`slowest rules over ${(text.length / 1e6).toFixed(0)} MB:`);
  for (const [id, t] of rows.slice(0, 6)) console.log(`  ${id.padEnd(28)} ${t.toFixed(0)} ms`);
}
