import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkout } from "./deps-checkout.js";
import { median } from "./timing.js";

/**
 * Issue #28: `patchwright deps --dry-run --json` on a real pnpm monorepo
 * against the live registry, beside `pnpm outdated -r` on the same files.
 * Both run as processes of the built project (`npm run build` first), in
 * turn, RUNS times each; the medians of wall time and peak RSS are printed
 * with the plan's own `timing`. Goal: under 5 s and 300 MB.
 *
 * The workspace is checked out once into bench/.cache/deps-plan/ from
 * DEPS_PLAN_SOURCE (a checkout, a git directory or a clone URL; only the
 * files a plan reads): for issue #28, vuejs/pinia (8 package.json files,
 * a 358 kB pnpm-lock.yaml). Without a source or a cached checkout the
 * bench says so and measures nothing: it needs the network, which the
 * other benches do not.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BUILT_CLI = join(ROOT, "build", "cli.js");
const PEAK_RSS = fileURLToPath(new URL("./peak-rss.mjs", import.meta.url));
const PNPM = join(ROOT, "node_modules", "pnpm", "bin", "pnpm.cjs");
const CACHE = fileURLToPath(new URL(".cache/deps-plan/", import.meta.url));
const WORKSPACE = join(CACHE, "workspace");
const RUNS = Number(process.env.DEPS_PLAN_RUNS ?? 5);
const GOAL = { seconds: 5, peakRssMb: 300 };

interface Sample {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  timing?: Record<string, unknown>;
}

export async function bench(): Promise<void> {
  const source = await workspace();
  if (!source) {
    console.log(
      "skipped: set DEPS_PLAN_SOURCE to a pnpm monorepo (a checkout, a git directory or a clone URL), e.g. vuejs/pinia",
    );
    return;
  }
  if (!existsSync(BUILT_CLI)) throw new Error("no build/cli.js: run `npm run build` first");
  // pnpm reads what is installed from node_modules/.pnpm/lock.yaml: the lockfile is what it has.
  await mkdir(join(WORKSPACE, "node_modules/.pnpm"), { recursive: true });
  await copyFile(
    join(WORKSPACE, "pnpm-lock.yaml"),
    join(WORKSPACE, "node_modules/.pnpm/lock.yaml"),
  );
  const manifests = JSON.parse(
    (await measure([BUILT_CLI, "deps", "--cwd", WORKSPACE, "--dry-run", "--json"])).out,
  ).manifests as string[];
  console.log(`workspace: ${source} (${manifests.length} package.json files), ${RUNS} runs each`);

  const ours: Sample[] = [];
  const theirs: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    const plan = await measure([BUILT_CLI, "deps", "--cwd", WORKSPACE, "--dry-run", "--json"]);
    const timing = (JSON.parse(plan.out) as { timing?: Record<string, unknown> }).timing;
    ours.push({
      ms: plan.ms,
      cpuMs: plan.cpuMs,
      peakRssMb: plan.peakRssMb,
      ...(timing ? { timing } : {}),
    });
    theirs.push(await measure([PNPM, "outdated", "-r", "--format", "json"], WORKSPACE));
  }
  const row = (label: string, samples: Sample[]) => {
    const ms = samples.map((s) => s.ms);
    const mb = samples.map((s) => s.peakRssMb);
    const cpu = samples.map((s) => s.cpuMs);
    return `${label.padEnd(36)} ${(median(ms) / 1000).toFixed(2)} s (${range(ms, (v) => (v / 1000).toFixed(1))}), CPU ${(median(cpu) / 1000).toFixed(2)} s, peak RSS ${median(mb)} MB (${range(mb, String)})`;
  };
  console.log(row("patchwright deps --dry-run --json", ours));
  console.log(row("pnpm outdated -r", theirs));
  const last = ours.at(-1)?.timing;
  if (last) console.log(`plan timing (last run): ${JSON.stringify(last)}`);
  const seconds = median(ours.map((s) => s.ms)) / 1000;
  const rss = median(ours.map((s) => s.peakRssMb));
  console.log(
    `goal: < ${GOAL.seconds} s and < ${GOAL.peakRssMb} MB: ${seconds < GOAL.seconds && rss < GOAL.peakRssMb ? "met" : "NOT met"}`,
  );
}

/** The cached checkout, made from DEPS_PLAN_SOURCE when that is new; its source, or undefined. */
async function workspace(): Promise<string | undefined> {
  const wanted = process.env.DEPS_PLAN_SOURCE;
  const marker = join(CACHE, "source.txt");
  const cached = await readFile(marker, "utf8").catch(() => undefined);
  if (cached !== undefined && (!wanted || wanted === cached.trim())) return cached.trim();
  if (!wanted) return undefined;
  await mkdir(CACHE, { recursive: true });
  const fresh = await mkdtemp(join(CACHE, "checkout-"));
  await checkout(wanted, fresh);
  await rm(WORKSPACE, { recursive: true, force: true });
  await rename(fresh, WORKSPACE);
  await writeFile(marker, `${wanted}\n`);
  return wanted;
}

/** One process of node, with its wall time and peak RSS (bench/peak-rss.mjs). */
async function measure(
  args: string[],
  cwd = ROOT,
): Promise<{ ms: number; cpuMs: number; peakRssMb: number; out: string }> {
  const env = {
    ...process.env,
    // The version the workspace pins is not what is measured.
    npm_config_manage_package_manager_versions: "false",
    COREPACK_ENABLE_STRICT: "0",
  };
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PEAK_RSS, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d));
  child.stderr.on("data", (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const ms = performance.now() - started;
  const peak = Number(/PEAK_RSS_KB (\d+)/.exec(err)?.[1] ?? Number.NaN);
  const cpuMs = Number(/CPU_MS (\d+)/.exec(err)?.[1] ?? Number.NaN);
  // `pnpm outdated` exits 1 when something is outdated: its output is the answer all the same.
  if (code !== 0 && !out.trim())
    throw new Error(`${args.join(" ")} exited ${code}: ${err.slice(-2000)}`);
  return { ms, cpuMs, peakRssMb: Math.round(peak / 1024), out };
}

function range(values: number[], show: (v: number) => string): string {
  return `${show(Math.min(...values))}–${show(Math.max(...values))}`;
}
