import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import nodeModule from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  BUILTIN_EXPORTS,
  checkLateImports,
  LAZY_EXPORTS,
  moduleShape,
  nonAsciiIn,
} from "../../scripts/bundle-action.mjs";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";
import { reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  commentPayload,
  eventPayload,
  node24,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * What the Action loads before it gets to work (src/action/run.ts,
 * scripts/bundle-action.mjs): V8's compile cache for the bundle on Node 22
 * and later, and only the chunks a run needs before its first model request.
 */

const bundle = useBundle();
const uid = process.getuid?.() ?? "user";

let world: ActionWorld | undefined;
const dirs: TempDir[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const dir of dirs.splice(0)) dir.remove();
});

function tempDir(): string {
  const dir = makeTempDir("pw-action-tmp-");
  dirs.push(dir);
  return dir.path;
}

/** Runs the bundle with no event (it loads, says what is missing and exits 1). */
function loadBundle(node: string, env: Record<string, string>) {
  const ran = spawnSync(node, [bundle.entry], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    encoding: "utf8",
  });
  expect(ran.stdout).toContain("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set");
  return ran;
}

/** The cache files Node wrote for this Node version (one folder per version). */
function cacheFiles(tmp: string): string[] {
  const folder = join(tmp, `patchwright-compile-cache-${uid}`);
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((version) =>
    readdirSync(join(folder, version)).map((file) => join(folder, version, file)),
  );
}

describe("the Action's compile cache", () => {
  it("keeps the compiled bundle in a folder of the user's under TMPDIR from a machine's second run, compiled whole, and reads it the next run (Node 24)", () => {
    const tmp = tempDir();
    loadBundle(node24(), { TMPDIR: tmp });
    // The first run on a machine makes the folder and writes nothing (compile-cache.ts says why).
    expect(existsSync(join(tmp, `patchwright-compile-cache-${uid}`))).toBe(true);
    expect(cacheFiles(tmp)).toEqual([]);
    const debug = { NODE_DEBUG_NATIVE: "COMPILE_CACHE" };
    const second = loadBundle(node24(), { TMPDIR: tmp, ...debug });
    expect(second.stderr).not.toMatch(/was accepted|was rejected/);
    // The entry, the main chunk and the chunks it imports.
    expect(cacheFiles(tmp).length).toBeGreaterThanOrEqual(3);
    // The size of the cache of the chunk with main's code as the run read it (Node's debug line says).
    const chunk = mainCodeChunk(bundle.dir).replaceAll(".", "\\.");
    const mainCache = (debug: string) => {
      const size = new RegExp(
        `for ESM \\S+/${chunk}\\.\\.\\.\\[[^\\]]*\\]\\.\\.\\. success, size=(\\d+)`,
      ).exec(debug)?.[1];
      if (!size) throw new Error(`no cache read for the main chunk:\n${debug}`);
      return Number(size);
    };
    const third = loadBundle(node24(), { TMPDIR: tmp, ...debug });
    // (index.js itself turns the cache on, so it is compiled before the cache is there.)
    expect(third.stderr).toMatch(new RegExp(`code cache for ESM \\S+/${chunk} was accepted`));
    expect(third.stderr).not.toMatch(/was rejected|no such file or directory/);
    // Every function of the chunk is in it, not only its top-level code: a folder the
    // workflow names is written from the first run, as its modules load (lazily).
    const named = tempDir();
    loadBundle(node24(), { TMPDIR: tempDir(), NODE_COMPILE_CACHE: named });
    const lazy = loadBundle(node24(), { TMPDIR: tempDir(), NODE_COMPILE_CACHE: named, ...debug });
    expect(mainCache(third.stderr)).toBeGreaterThan(3 * mainCache(lazy.stderr));
    // That run compiled whole, V8 refused the lazy entries, and Node wrote them again.
    expect(lazy.stderr).toMatch(new RegExp(`code cache for ESM \\S+/${chunk} was rejected`));
  });

  it("loads none of Node's own modules while it compiles the job's modules whole (one loaded then compiles from source, whole)", () => {
    const tmp = tempDir();
    const out = join(tmp, "loaded-while-eager.txt");
    const preload = join(tmp, "watch-eager.cjs");
    // compile-cache.ts loadEagerly turns V8's lazy flag off and on again around
    // each eager load; what Node loaded of its own in between is written down.
    writeFileSync(
      preload,
      [
        'const v8 = require("node:v8");',
        'const { appendFileSync } = require("node:fs");',
        "const set = v8.setFlagsFromString;",
        "let before;",
        "v8.setFlagsFromString = (flags) => {",
        '  if (flags === "--no-lazy") before = new Set(process.moduleLoadList);',
        "  set(flags);",
        '  if (flags === "--lazy" && before) {',
        '    const added = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith("NativeModule "));',
        `    appendFileSync(${JSON.stringify(out)}, \`window:\${added.join(",")}\n\`);`,
        "    before = undefined;",
        "  }",
        "};",
      ].join("\n"),
    );
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: tmp };
    for (let run = 0; run < 3; run++) {
      const ran = spawnSync(node24(), ["--require", preload, bundle.entry], {
        env,
        encoding: "utf8",
      });
      expect(ran.stdout).toContain("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set");
    }
    // The warm runs (the second and third) load the early fetch's modules and main's eagerly.
    const windows = readFileSync(out, "utf8").trim().split("\n");
    expect(windows).toHaveLength(4);
    for (const window of windows) {
      // The secret rules' bundled lodash asks process.binding("util") as it loads: a few lines.
      const loaded = window.slice("window:".length).split(",").filter(Boolean);
      expect(
        loaded.filter((name) => name !== "NativeModule internal/legacy/processbinding"),
      ).toEqual([]);
    }
  });

  it("writes none on a GitHub-hosted runner, a new machine each job, unless the workflow names a folder (Node 24)", () => {
    const hosted = tempDir();
    loadBundle(node24(), { TMPDIR: hosted, RUNNER_ENVIRONMENT: "github-hosted" });
    expect(existsSync(join(hosted, `patchwright-compile-cache-${uid}`))).toBe(false);
    const named = tempDir();
    loadBundle(node24(), {
      TMPDIR: hosted,
      RUNNER_ENVIRONMENT: "github-hosted",
      NODE_COMPILE_CACHE: named,
    });
    expect(readdirSync(named).length).toBeGreaterThan(0);
    expect(existsSync(join(hosted, `patchwright-compile-cache-${uid}`))).toBe(false);
    loadBundle(node24(), { TMPDIR: hosted, RUNNER_ENVIRONMENT: "github-hosted" });
    expect(existsSync(join(hosted, `patchwright-compile-cache-${uid}`))).toBe(false);
    // A self-hosted runner keeps its temporary folder from job to job.
    const own = tempDir();
    for (let run = 0; run < 2; run++) {
      loadBundle(node24(), { TMPDIR: own, RUNNER_ENVIRONMENT: "self-hosted" });
    }
    expect(cacheFiles(own).length).toBeGreaterThanOrEqual(3);
  });

  it("does not use a folder that others may write to (its code would run as this user)", () => {
    const tmp = tempDir();
    const folder = join(tmp, `patchwright-compile-cache-${uid}`);
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    loadBundle(node24(), { TMPDIR: tmp });
    expect(readdirSync(folder)).toEqual([]);
  });

  it("runs a job as before when the cache holds garbage or cannot be made", async () => {
    const tmp = tempDir();
    loadBundle(node24(), { TMPDIR: tmp });
    loadBundle(node24(), { TMPDIR: tmp });
    const files = cacheFiles(tmp);
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) writeFileSync(file, "not a code cache");
    const blocked = tempDir();
    // A file where the folder would go: no cache at all.
    writeFileSync(join(blocked, `patchwright-compile-cache-${uid}`), "");
    world = await startWorld({ steps: [reply("Nothing to change."), reply("Nothing to change.")] });
    for (const TMPDIR of [tmp, blocked]) {
      const run = await runAction(bundle.entry, world, {
        event: "workflow_dispatch",
        payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
        inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up" },
        env: { TMPDIR },
      });
      expect(run.code, run.log).toBe(0);
      expect(run.outputs.conclusion).toBe("no_changes");
    }
  });

  // The tests run on Node 20, the oldest the engines field allows.
  it.runIf(!("enableCompileCache" in nodeModule))(
    "is not there on Node 20, which compiles every run",
    () => {
      const tmp = tempDir();
      loadBundle(process.execPath, { TMPDIR: tmp });
      expect(existsSync(join(tmp, `patchwright-compile-cache-${uid}`))).toBe(false);
    },
  );
});

describe("the Action's fetch", () => {
  it("is one fetch, started by the entry before the bundle loads and used by the job", async () => {
    world = await startWorld({ steps: [reply("Nothing to change."), reply("Nothing to change.")] });
    const comment = commentPayload(world, "octocat", "@agent tidy up");
    const runs = [
      {
        event: "workflow_dispatch",
        payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
        inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up" },
      },
      {
        event: "issue_comment",
        payload: comment,
        inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      },
    ];
    for (const options of runs) {
      const before = world.git.requests.length;
      const run = await runAction(bundle.entry, world, options);
      expect(run.code, run.log).toBe(0);
      // Each fetch starts with the ref advertisement: one per run, however many callers wanted it.
      const adverts = world.git.requests
        .slice(before)
        .filter((r) => r.method === "GET" && r.query.includes("git-upload-pack"));
      expect(adverts, options.event).toHaveLength(1);
    }
  });
});

/**
 * A preload that, as the bundle's main chunk is about to load, holds the
 * thread as that loading does (up to 2 s) until fake GitHub has had the
 * reads a comment's job begins with, and notes whether it had.
 */
const LOAD_PROBE = [
  'import { registerHooks } from "node:module";',
  'const { existsSync, writeFileSync } = process.getBuiltinModule("node:fs");',
  "const { PW_PROBE_OUT: out, PW_READS_ARRIVED: arrived } = process.env;",
  "registerHooks({ load(url, context, nextLoad) {",
  "  if (/\\/main-\\w+\\.js$/.test(url) && !existsSync(out)) {",
  "    const cell = new Int32Array(new SharedArrayBuffer(4));",
  "    const until = Date.now() + 2000;",
  "    while (!existsSync(arrived) && Date.now() < until) Atomics.wait(cell, 0, 0, 10);",
  "    writeFileSync(out, existsSync(arrived) ? 'arrived' : 'not arrived');",
  "  }",
  "  return nextLoad(url, context);",
  "} });",
].join("\n");

describe("the Action's first API reads", () => {
  it("reach GitHub before the rest of the bundle loads (Node writes a request only as its event loop turns, and the loading holds the thread)", async () => {
    const dir = tempDir();
    const probe = join(dir, "probe.mjs");
    const out = join(dir, "loading.txt");
    const arrived = join(dir, "arrived");
    writeFileSync(probe, LOAD_PROBE);
    const early = new Set<string>();
    world = await startWorld({
      steps: [reply("Nothing to change.")],
      github: {
        holdAnswer: (method: string, path: string) => {
          // The thread, the open pull requests, the permission and the config.
          if (method === "GET" && /\/(comments|pulls|permission|contents\/)/.test(path)) {
            early.add(path.replace(/\?.*/, ""));
          }
          if (early.size === 4 && !existsSync(arrived)) writeFileSync(arrived, "");
          return undefined;
        },
      },
    });
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "@agent tidy up"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      env: {
        NODE_OPTIONS: `--import=${pathToFileURL(probe).href}`,
        PW_PROBE_OUT: out,
        PW_READS_ARRIVED: arrived,
      },
    });
    expect(run.code, run.log).toBe(0);
    expect(early.size, run.log).toBe(4);
    expect(readFileSync(out, "utf8")).toBe("arrived");
  });
});

/**
 * A preload that notes each outgoing request, which client sent it (Node's
 * http or undici, the global fetch's library) and whether undici had loaded
 * by then, and at the process's exit whether it had loaded at all.
 */
const REQUEST_PROBE = [
  'import dc from "node:diagnostics_channel";',
  // Not an import: node:fs's ESM facade would load the file streams the probe looks for.
  'const { appendFileSync } = process.getBuiltinModule("node:fs");',
  "const loaded = (part) => process.moduleLoadList.some((name) => name.includes(part));",
  "const undici = () => loaded('undici') ? 'undici-loaded' : 'undici-absent';",
  "const streams = () => loaded('internal/fs/streams') ? 'streams-loaded' : 'streams-absent';",
  "const note = (via, url) => appendFileSync(process.env.PW_PROBE_OUT, [via, url, undici(), streams()].join(' ') + '\\n');",
  "dc.subscribe('http.client.request.start', ({ request }) => note('http', request.host + request.path));",
  "dc.subscribe('undici:request:create', ({ request }) => note('undici', request.origin + request.path));",
  // Whether undici had loaded by the end of the run, beside the requests' file.
  "process.on('exit', () => appendFileSync(process.env.PW_PROBE_OUT.replace(/[^/]*$/, 'exit.txt'), undici()));",
].join("\n");

describe("the Action's HTTP clients", () => {
  it("send the API calls and the model's requests through node:http: undici, the global fetch's library (25-40 ms of the start on Node 24), never loads", async () => {
    world = await startWorld({ steps: [reply("Nothing to change."), reply("Nothing to change.")] });
    const dir = tempDir();
    const probe = join(dir, "probe.mjs");
    const out = join(dir, "requests.txt");
    writeFileSync(probe, REQUEST_PROBE);
    writeFileSync(out, "");
    const comment = commentPayload(world, "octocat", "@agent tidy up");
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: comment,
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      env: { NODE_OPTIONS: `--import=${pathToFileURL(probe).href}`, PW_PROBE_OUT: out },
    });
    expect(run.code, run.log).toBe(0);
    const requests = readFileSync(out, "utf8").trim().split("\n");
    const api = requests.filter((line) => line.includes("/repos/octo-org/"));
    // The thread, the pull requests, the permission, the config, the reactions and comments.
    expect(api.length).toBeGreaterThanOrEqual(6);
    const model = requests.filter((line) => line.includes("/v1/messages"));
    expect(model).toHaveLength(1);
    // Every request, the last comment's update included, went out through node:http...
    expect(
      requests.every((line) => line.startsWith("http ")),
      requests.join("\n"),
    ).toBe(true);
    // ...and undici was never loaded (the Anthropic SDK's Headers and FormData are
    // http-fetch.ts's stand-ins in the bundle: scripts/bundle-action.mjs).
    expect(requests.every((line) => line.includes("undici-absent"))).toBe(true);
    expect(readFileSync(join(dir, "exit.txt"), "utf8")).toBe("undici-absent");
    // By the model's request Node's file streams have not loaded either: nothing on the
    // way used one (node:fs's ESM facade loads them, as a WriteStream would).
    expect(model[0]).toMatch(/streams-absent$/);
  });
});

/** The chunk index.js imports as `name-<hash>.js` and the chunks it imports, statically, and their size. */
function chunksFrom(dir: string, name: string): { files: string[]; bytes: number } {
  const index = readFileSync(join(dir, "index.js"), "utf8");
  const first = new RegExp(`import\\("\\./(${name}-[\\w]+\\.js)"\\)`).exec(index)?.[1];
  if (!first) throw new Error(`index.js does not import a ${name} chunk`);
  const files = [first];
  for (let i = 0; i < files.length; i++) {
    const text = readFileSync(join(dir, files[i] as string), "utf8");
    for (const [, chunk] of text.matchAll(/(?:from|import)\s*"\.\/([\w-]+\.js)"/g)) {
      if (chunk && !files.includes(chunk)) files.push(chunk);
    }
  }
  const bytes = files.reduce((sum, file) => sum + readFileSync(join(dir, file)).length, 0);
  return { files, bytes };
}

/** The largest chunk main-<hash>.js loads: the one with main's own modules. */
function mainCodeChunk(dir: string): string {
  const [largest] = startupChunks(dir).files.sort(
    (a, b) => readFileSync(join(dir, b)).length - readFileSync(join(dir, a)).length,
  );
  if (!largest) throw new Error("no main chunk");
  return largest;
}

/** The chunks index.js's main chunk imports, statically, and their size. */
function startupChunks(dir: string): { files: string[]; bytes: number } {
  return chunksFrom(dir, "main");
}

describe("the Action bundle's chunks", () => {
  it("start a run without the code its first model request does not need", () => {
    const { files, bytes } = startupChunks(bundle.dir);
    const texts = files.map((file) => readFileSync(join(bundle.dir, file), "utf8"));
    const loaded = (marker: string) => texts.some((text) => text.includes(marker));
    // Dependency bumps (the npm registry's client), loaded by deps mode and tend_bot_prs.
    expect(loaded("npm-registry-fetch")).toBe(false);
    // The shell grammar, loaded beside the first model request.
    expect(loaded("tree-sitter.wasm")).toBe(false);
    // The shell commands' policy and their analysis (policy.ts loads them with the grammar).
    expect(loaded("is not on the default preset's command list")).toBe(false);
    // The MCP SDK, loaded when the config names servers.
    expect(loaded("modelcontextprotocol")).toBe(false);
    // The YAML parser, loaded when the repository has a config file or a sandbox has yarn settings.
    expect(loaded("Implicit map keys need to be")).toBe(false);
    // The table of every REST endpoint (@octokit/rest): the Action's client has the ones src/ calls (github/rest/route-client.ts).
    expect(loaded("addCustomLabelsToSelfHostedRunnerForOrg")).toBe(false);
    // @actions/core's platform and what it imports (@actions/exec, @actions/io, node:assert): no core.platform is read.
    expect(loaded('getBuiltinModule("node:assert")')).toBe(false);
    expect(loaded('getBuiltinModule("node:timers")')).toBe(false);
    // zod's classic API (each schema with every method): src/ builds its schemas with zod/mini (src/zod.ts).
    expect(loaded('"ZodObject"')).toBe(false);
    // The built-in tools' work, loaded at each tool's first call (define-tool.ts runOnFirstCall):
    // read_file's notes, edit_file's diff, grep_search's pattern checks, run_shell's report.
    expect(loaded("so its lines are shown split at each")).toBe(false);
    expect(loaded("more diff lines not shown")).toBe(false);
    expect(loaded("is never closed; close the group with")).toBe(false);
    expect(loaded("left running in the background were stopped")).toBe(false);
    // bubblewrap's setup and the host's trust for it, loaded when a job first opens a sandbox
    // (action/containment.ts), and the job page's renderer, loaded as the run writes it (action/job-view.ts).
    expect(loaded('"--unshare-all"')).toBe(false);
    expect(loaded("color-scheme: light dark")).toBe(false);
    // The planning of the kinds other than a plain request (thread/kinds/planners.ts), loaded at
    // a kind's first plan: a CI fix's and a branch update's instructions.
    expect(loaded("Find the cause in the failing jobs' output")).toBe(false);
    expect(loaded("resolve the conflicts it lists below")).toBe(false);
    // ...their headlines are (the tracking comment starts with one).
    expect(loaded("Bringing this branch up to date with its base")).toBe(true);
    // How a change is published and a branch update's steps, loaded once the change is made
    // or when a plan updates a branch (thread/execute-plan.ts).
    expect(loaded("resolve the conflicts with")).toBe(false);
    expect(loaded("updating a branch needs the branch and its base")).toBe(false);
    // The job's reports (the tracking comment's last word, the pull request's body, the
    // workflow run's headline), loaded when the job is over (thread/execute-plan.ts, action/run-action.ts).
    expect(loaded("or ask for a smaller change.")).toBe(false);
    expect(loaded("### MCP tools used")).toBe(false);
    // The change's commit, verify and push steps, loaded when they run (change/run-change.ts).
    expect(loaded("it is the default branch; jobs only push their own branch")).toBe(false);
    // ...the tools' declarations are: the model is shown every tool in the first request.
    expect(loaded("Replaces an exact, literal piece of text in a file")).toBe(true);
    // ...while what is loaded is there: the agent's loop, the Messages API's retry, zod/mini.
    expect(loaded("the early first turn was not used")).toBe(true);
    expect(loaded('"ZodMiniObject"')).toBe(true);
    // About 500 kB today (510 kB with the push, 530 kB with the reports, 571 kB with the kinds' planning and the publishing, 608 kB with the sandbox's setup and the page renderer, 664 kB with the tools' work, 703 kB with all of GitHub's REST endpoints, 862 kB with classic zod, 2 MB before the deps code moved out); a jump means something slipped in.
    expect(bytes).toBeLessThan(530_000);
  });

  it("hold main's modules in a few files: the modules the job imports when it needs them load after main.ts", () => {
    // scripts/bundle-action.mjs lateImportsAfterMain: without it esbuild cut main's
    // modules into 38 files by which lazy module shares which of them; 20 with
    // our own lazy imports' stand-ins, 14 with the libraries' too (those index.js
    // and early-fetch.ts loaded before among them).
    expect(startupChunks(bundle.dir).files.length).toBeLessThanOrEqual(16);
  });

  it("refuse to build when code that runs before main.ts imports a module that loads main.ts", () => {
    const early = (imports: Array<{ path: string; kind: string; external?: boolean }>) => ({
      "src/action/run.ts": {
        imports: [
          { path: "src/action/early-fetch.ts", kind: "dynamic-import" },
          { path: "src/action/main.ts", kind: "dynamic-import" },
        ],
      },
      "src/action/early-fetch.ts": {
        imports: [{ path: "src/kernel/repository.ts", kind: "import-statement" }],
      },
      "src/kernel/repository.ts": { imports },
      "src/action/main.ts": {
        imports: [{ path: "after-main:src/agent/tools/tools-work.ts", kind: "dynamic-import" }],
      },
    });
    // From main's code: fine.
    expect(() => checkLateImports(early([]))).not.toThrow();
    // From the early fetch's: main's modules would load before zod-jitless.ts and the fetch.
    expect(() =>
      checkLateImports(
        early([{ path: "after-main:src/sandbox/select.ts", kind: "dynamic-import" }]),
      ),
    ).toThrow(/src\/kernel\/repository\.ts -> after-main:src\/sandbox\/select\.ts/);
  });

  it("are ASCII: the build names a chunk with a character past it (regular expressions and tagged templates keep theirs)", () => {
    const chunks = readdirSync(bundle.dir).filter((name) => name.endsWith(".js"));
    expect(
      nonAsciiIn(chunks.map((name) => [name, readFileSync(join(bundle.dir, name), "utf8")])),
    ).toEqual([]);
    // What esbuild leaves as written: the file and the text before the character.
    expect(
      nonAsciiIn([
        ["chunk-A.js", 'let words=/\\s[\u2014-]\\s/g,text="\\u2014";'],
        ["chunk-B.js", "let page=r`<title>Job \u00b7 patchwright</title>`;"],
        ["chunk-C.js", 'let text="\\u00b7";'],
      ]),
    ).toEqual([
      "chunk-A.js: ...let words=/\\s[\u2014-]\\s/g,te...",
      "chunk-B.js: ...let page=r`<title>Job \u00b7 patchwri...",
    ]);
  });

  it("pass on a lazily imported module's default export, however the module writes it", async () => {
    // The stand-in re-exports with `export *`, which leaves `default` out (the Messages client's class is one).
    const hasDefault = async (source: string) =>
      (await moduleShape(source, "ts")).exports.includes("default");
    for (const source of [
      "export default class Client {}",
      "class Client {}\nexport { Client as default };",
      'export { default } from "./client.js";',
      'export {\n  helper,\n  default,\n} from "./client.js";',
    ]) {
      expect(await hasDefault(source), source).toBe(true);
    }
    for (const source of [
      "export const defaults = {};",
      "// export default came later\nexport function load() {}",
      'export { helper } from "./client.js";\nconst options = { default: 1 };',
    ]) {
      expect(await hasDefault(source), source).toBe(false);
    }
  });

  it("leave a CommonJS module's lazy import as it is, and give an ES module's a stand-in", async () => {
    // `export *` from CommonJS is a copy made at run time: yaml's lazy import keeps its own chunk.
    for (const source of [
      "module.exports = { parse };",
      "exports.parse = parse; // export default x",
    ]) {
      expect((await moduleShape(source, "js")).esm, source).toBe(false);
    }
    for (const source of ['export * from "./client.js";', "export const parse = () => {};"]) {
      expect((await moduleShape(source, "js")).esm, source).toBe(true);
    }
  });

  it("load without undici, the global fetch's library (its load took ~40 ms of the start on Node 24)", () => {
    const probe =
      "data:text/javascript,process.on('exit',()=>process.stderr.write('undici:'+process.moduleLoadList.some((m)=>m.includes('undici'))))";
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const ran = spawnSync(node24(), ["--import", probe, bundle.entry], { env, encoding: "utf8" });
    expect(ran.stdout).toContain("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set");
    expect(ran.stderr).toContain("undici:false");
    // The probe sees undici when it is loaded: an ESM import of node:http loads it (scripts/bundle-action.mjs).
    const facade = spawnSync(
      node24(),
      ["--import", probe, "--input-type=module", "-e", 'import "node:http";'],
      { env, encoding: "utf8" },
    );
    expect(facade.stderr).toContain("undici:true");
  });

  it("start the repository's fetch before the secret detector and the prompt's code load", () => {
    // What index.js loads before git starts (early-fetch.ts): kernel/base-facts.ts keeps the rest apart.
    const { files, bytes } = chunksFrom(bundle.dir, "early-fetch");
    const texts = files.map((file) => readFileSync(join(bundle.dir, file), "utf8"));
    expect(texts.some((text) => text.includes("@secretlint/secretlint-rule-aws"))).toBe(false);
    expect(texts.some((text) => text.includes("--prune"))).toBe(true);
    // About 47 kB today (44 kB before the spawner's helper streamed shell
    // commands; 87 kB with the shell's environment and its secret detector).
    expect(bytes).toBeLessThan(52_000);
    // The main chunks do load the detector: the marker above is the right one.
    const main = startupChunks(bundle.dir).files.map((file) =>
      readFileSync(join(bundle.dir, file), "utf8"),
    );
    expect(main.some((text) => text.includes("@secretlint/secretlint-rule-aws"))).toBe(true);
  });

  it("give each built-in every export Node 24 has, but the costly lazy ones", () => {
    const modules = Object.keys(BUILTIN_EXPORTS).map((name) => name.slice("node:".length));
    const script = `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(modules)}.map((m) => ["node:" + m, Object.keys(require(m))]))))`;
    const ran = spawnSync(node24(), ["-e", script], { encoding: "utf8" });
    const exports = JSON.parse(ran.stdout) as Record<string, string[]>;
    for (const [module, names] of Object.entries(exports)) {
      const kept = BUILTIN_EXPORTS[module] ?? [];
      const lazy = LAZY_EXPORTS[module] ?? [];
      // A missing one reads as undefined through a namespace import (@actions/http-client's `http.globalAgent`).
      const missing = names.filter((name) => !kept.includes(name) && !lazy.includes(name));
      expect(missing, `${module}: add to scripts/builtin-exports.json`).toEqual([]);
      // One Node 24 does not list may be a deprecated accessor that warns when read (Node 20's fs.F_OK).
      const extra = kept.filter((name) => !names.includes(name) || lazy.includes(name));
      expect(extra, `${module}: not an export of Node 24`).toEqual([]);
    }
  });

  it("each load on Node 20 and on Node 24", () => {
    const script = [
      'import { readdirSync } from "node:fs";',
      `const dir = ${JSON.stringify(bundle.dir)};`,
      'for (const file of readdirSync(dir).filter((f) => f.endsWith(".js") && f !== "index.js"))',
      `  await import(${JSON.stringify(pathToFileURL(bundle.dir).href)} + "/" + file);`,
      'console.log("loaded");',
    ].join("\n");
    for (const node of [process.execPath, node24()]) {
      const ran = spawnSync(node, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(ran.stderr, node).toBe("");
      expect(ran.stdout.trim(), node).toBe("loaded");
    }
  });
});
