import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median } from "./timing.js";

/**
 * Issue #28's monorepo plan: reading one large full packument, offline. A
 * document shaped like next's (2,600 versions, each with its dependencies,
 * scripts, dist and maintainers; a readme and users at the top; about 20 MB)
 * is read by the plan's reader (registry/packument.ts, member by member)
 * and, as the limit, by `JSON.parse` of the whole text, which is what any
 * reader of the whole document pays at least (and what the plan did until
 * it read members). Each read runs in a fresh process, RUNS times, after
 * reading a smaller document a few times (a plan reads a packument per
 * package, so its reader is warm); printed:
 * median time and the memory the read adds at its peak (peak RSS over RSS
 * before it).
 */

const RUNS = Number(process.env.PACKUMENT_RUNS ?? 5);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const READER = new URL("../src/deps/registry/packument.ts", import.meta.url).href;
const run = promisify(execFile);

const READS = {
  "the plan's reader (member by member)": `const { parsePackument } = await import(${JSON.stringify(READER)});
    read = (body) => parsePackument(body, false);`,
  "JSON.parse of the whole (limit)": `read = (body) => JSON.parse(body.toString("utf8"));`,
};

export async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pw-bench-packument-"));
  try {
    const file = join(dir, "next.json");
    const text = JSON.stringify(document(2_600));
    await writeFile(file, text);
    const warm = join(dir, "small.json");
    await writeFile(warm, JSON.stringify(document(100)));
    console.log(
      `a full packument of ${(text.length / 1e6).toFixed(1)} MB, 2,600 versions; ${RUNS} runs each`,
    );
    const rows: Record<string, { ms: number; mb: number }> = {};
    for (const [label, setup] of Object.entries(READS)) {
      const samples: { ms: number; mb: number }[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await measure(setup, file, warm));
      rows[label] = {
        ms: median(samples.map((s) => s.ms)),
        mb: median(samples.map((s) => s.mb)),
      };
      console.log(
        `${label.padEnd(38)} ${rows[label].ms.toFixed(0)} ms, +${rows[label].mb} MB at its peak`,
      );
    }
    const [ours, limit] = Object.values(rows);
    if (ours && limit)
      console.log(
        `against the limit: ${(ours.ms / limit.ms).toFixed(2)}x the time, ${(ours.mb / limit.mb).toFixed(2)}x the memory (goal: at most 1x each)`,
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(
  setup: string,
  file: string,
  warm: string,
): Promise<{ ms: number; mb: number }> {
  const script = `import { readFileSync } from "node:fs";
    let read;
    ${setup}
    const body = readFileSync(${JSON.stringify(file)});
    // Warm, as in a plan, which reads a packument per package.
    const small = readFileSync(${JSON.stringify(warm)});
    for (let i = 0; i < 20; i++) if (!read(small)) throw new Error("nothing read");
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const kept = read(body);
    const ms = performance.now() - started;
    const peak = process.resourceUsage().maxRSS * 1024;
    if (!kept) throw new Error("nothing read");
    console.log(JSON.stringify({ ms, mb: Math.round((peak - before) / 1048576) }));`;
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: ROOT, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as { ms: number; mb: number };
}

/** A document shaped like a large project's full packument. */
function document(count: number): Record<string, unknown> {
  const versions: Record<string, unknown> = {};
  const time: Record<string, string> = { created: "2016-10-25T00:00:00.000Z" };
  const deps = (prefix: string, n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`@${prefix}/package-${i}`, `^${i}.2.3`]),
    );
  for (let i = 0; i < count; i++) {
    const version = `15.${Math.floor(i / 100)}.${i % 100}-canary.${i}`;
    time[version] = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
    versions[version] = {
      name: "next",
      version,
      description: "The React Framework for production: hybrid static and server rendering.",
      keywords: ["react", "framework", "ssr", "static", "server"],
      license: "MIT",
      _id: `next@${version}`,
      gitHead: "0123456789abcdef0123456789abcdef01234567",
      _nodeVersion: "20.18.0",
      _npmVersion: "10.8.2",
      repository: {
        url: "git+https://github.com/vercel/next.js.git",
        type: "git",
        directory: "packages/next",
      },
      engines: { node: ">=18.18.0" },
      scripts: Object.fromEntries(
        Array.from({ length: 10 }, (_, j) => [`task${j}`, `node scripts/task-${j}.js --flag`]),
      ),
      dependencies: deps("deps", 12),
      devDependencies: deps("dev", 40),
      peerDependencies: { react: "^18.2.0 || ^19.0.0", "react-dom": "^18.2.0 || ^19.0.0" },
      optionalDependencies: deps("next", 9),
      files: Array.from({ length: 60 }, (_, j) => `dist/build/part-${j}/index.js`),
      peerDependenciesMeta: { sass: { optional: true }, "@playwright/test": { optional: true } },
      dist: {
        tarball: `https://registry.npmjs.org/next/-/next-${version}.tgz`,
        integrity: `sha512-${"A".repeat(86)}==`,
        shasum: "0123456789abcdef0123456789abcdef01234567",
        fileCount: 4_000 + i,
        unpackedSize: 100_000_000 + i,
        signatures: [
          { keyid: "SHA256:jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA", sig: "M".repeat(96) },
        ],
      },
      maintainers: Array.from({ length: 5 }, (_, j) => ({
        name: `maintainer${j}`,
        email: `m${j}@example.com`,
      })),
      _npmUser: { name: "vercel-release-bot", email: "infra@example.com" },
      directories: {},
    };
  }
  return {
    _id: "next",
    name: "next",
    "dist-tags": { latest: "15.5.0", canary: Object.keys(versions).at(-1) },
    versions,
    time,
    readme: "# Next.js\n\n".padEnd(60_000, "Read the docs. "),
    users: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`user${i}`, true])),
    repository: { url: "git+https://github.com/vercel/next.js.git", type: "git" },
  };
}
