import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createScriptedModel } from "../src/agent/model/scripted.js";
import { defaultConfig } from "../src/config/schema.js";
import { type DepsJobResult, runDepsJob } from "../src/deps/run-deps-job.js";
import { jobEvents } from "../src/kernel/events.js";
import { createBareRepo, gitTestEnv } from "../test/helpers/git-repos.js";
import { type LocalRegistry, startLocalRegistry } from "../test/helpers/npm-registry.js";
import { realSandbox } from "../test/helpers/sandbox.js";

/**
 * A real dependency job against verdaccio on loopback: an app with 125
 * installed packages (21 files each) and 5 groups (a patch group and 4 majors), each group
 * bumped, installed, tested, committed and pushed to a local bare
 * repository. Prints the wall time of each group and of the whole job, for
 * one install per job (the default) and for a fresh `npm ci` in every group
 * (deps.install set), against one group run alone.
 */

const run = promisify(execFile);
const DAY = 86_400_000;
const FILLERS = 120;
const FILES_PER_PACKAGE = 20;
const MAJORS = ["bench-a", "bench-b", "bench-c", "bench-d"];

export async function bench(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "pw-bench-deps-"));
  const registry = await startLocalRegistry(root);
  try {
    const now = Date.now();
    const files = await world(root, registry, now);
    const env = { ...gitTestEnv(join(root, "home")) };
    const sandbox = await realSandbox();
    let repos = 0;
    const job = async (deps: Record<string, unknown>, groups?: string[]) => {
      const repo = createBareRepo({ root, env, files, name: `app-${++repos}` });
      const started = performance.now();
      // Where the time goes: each step's time until the next one, summed by kind.
      const steps = new Map<string, number>();
      let last: { kind: string; at: number } | undefined;
      const onStep = (step: string) => {
        const at = performance.now();
        if (last) steps.set(last.kind, (steps.get(last.kind) ?? 0) + at - last.at);
        const plain = step.replace(/^[\w.-]+: /, "");
        last = { kind: plain.split(/[: ]/)[0] ?? plain, at };
      };
      const result: DepsJobResult = await runDepsJob(
        {
          cacheDir: join(root, `cache-${repos}`),
          sandbox,
          envSource: env,
          clock: { now: () => Date.now() },
          secrets: [],
          createModel: () => createScriptedModel([]),
        },
        {
          owner: "o",
          repo: "r",
          cloneUrl: repo.url,
          config: { ...defaultConfig(), deps },
          ...(groups ? { groups } : {}),
        },
        jobEvents({ step: onStep }),
      );
      const wall = performance.now() - started;
      onStep("end");
      const bad = result.groups.filter((g) => g.status !== "green");
      if (result.status !== "done" || bad.length > 0) {
        throw new Error(
          `bench job did not go green: ${result.message ?? bad.map((g) => `${g.group.slug} ${g.status} ${g.error?.message ?? ""}`).join("; ")}`,
        );
      }
      return { result, wall, steps };
    };

    // A first job warms what every later one reuses (module loading, the
    // sandbox, verdaccio's caches), so the one-group time is not inflated by it.
    await job({}, ["minor-and-patch"]);
    const one = await job({}, ["minor-and-patch"]);
    console.log(`one group alone (minor-and-patch), whole job: ${ms(one.wall)}`);
    for (const [label, deps] of [
      ["one install per job (default)", {}],
      ["npm ci in every group (deps.install: npm ci)", { install: "npm ci" }],
    ] as const) {
      const { result, wall, steps } = await job(deps);
      console.log(`\n${label}: ${result.groups.length} groups`);
      for (const g of result.groups)
        console.log(`  ${g.group.slug.padEnd(16)} ${ms(g.durationMs)}`);
      const sum = result.groups.reduce((total, g) => total + g.durationMs, 0);
      console.log(`  ${"(sum of groups)".padEnd(16)} ${ms(sum)}, run side by side`);
      console.log(`  total ${ms(wall)} = ${(wall / one.wall).toFixed(2)}x one group (target < 2x)`);
      console.log(
        `  by step (wall time until the next step, any group): ${[...steps].map(([kind, time]) => `${kind} ${ms(time)}`).join(", ")}`,
      );
    }
  } finally {
    await registry.close();
    await rm(root, { recursive: true, force: true });
  }
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** Publishes the packages and returns the app's files, lockfile made at the first versions. */
async function world(
  root: string,
  registry: LocalRegistry,
  now: number,
): Promise<Record<string, string>> {
  const fillers = Array.from({ length: FILLERS }, (_, i) => `bench-fill-${i}`);
  // Twenty files a package, as real packages ship many: installs, not the
  // job's own steps, are what grows with a project.
  const body = (name: string, version: string) => ({
    "index.js": `module.exports = { name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)} };\n`,
    ...Object.fromEntries(
      Array.from({ length: FILES_PER_PACKAGE }, (_, i) => [
        `lib/part-${i}.js`,
        `module.exports = ${JSON.stringify(`${name}@${version} part ${i} `.repeat(200))};\n`,
      ]),
    ),
  });
  const firsts = [...fillers, ...MAJORS, "bench-p"].map((name) => ({
    name,
    version: "1.0.0",
    files: body(name, "1.0.0"),
  }));
  for (let i = 0; i < firsts.length; i += 8) {
    await Promise.all(firsts.slice(i, i + 8).map((pkg) => registry.publish(pkg)));
  }
  const dependencies = Object.fromEntries(
    [...fillers, ...MAJORS, "bench-p"].map((name) => [name, "^1.0.0"]),
  );
  const manifest = {
    name: "bench-app",
    version: "1.0.0",
    private: true,
    scripts: { test: "node test.js" },
    dependencies,
  };
  const app = join(root, "app");
  await mkdir(app, { recursive: true });
  await writeFile(join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await run(
    "npm",
    ["install", "--package-lock-only", "--ignore-scripts", "--registry", registry.url],
    { cwd: app, env: registry.npmEnv },
  );
  const lockfile = await readFile(join(app, "package-lock.json"), "utf8");
  await Promise.all([
    ...MAJORS.map((name) =>
      registry.publish({ name, version: "2.0.0", files: body(name, "2.0.0") }),
    ),
    registry.publish({ name: "bench-p", version: "1.0.1", files: body("bench-p", "1.0.1") }),
  ]);
  for (const name of [...fillers, ...MAJORS, "bench-p"])
    await registry.setPublishTime(name, "1.0.0", new Date(now - 100 * DAY));
  for (const name of MAJORS) await registry.setPublishTime(name, "2.0.0", new Date(now - 30 * DAY));
  await registry.setPublishTime("bench-p", "1.0.1", new Date(now - 30 * DAY));
  const names = Object.keys(dependencies);
  return {
    "package.json": `${JSON.stringify(manifest, null, 2)}\n`,
    "package-lock.json": lockfile,
    "test.js": `for (const name of ${JSON.stringify(names)}) require(name);\nconsole.log("ok");\n`,
    ".gitignore": "node_modules\n",
    ".npmrc": `registry=${registry.url}\naudit=false\nfund=false\nupdate-notifier=false\n`,
  };
}
