import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/model/scripted.js";
import type { ChangeInput, ChangeResult } from "../../src/change/change.js";
import { runChange } from "../../src/change/run-change.js";
import { detectProjectTools } from "../../src/deps/managers/project-tools-source.js";
import { jobEvents } from "../../src/kernel/events.js";
import type { ProjectToolsSource } from "../../src/kernel/project-tools.js";
import { type NetworkPolicy, networkPolicy } from "../../src/sandbox/network.js";
import { runMain } from "../cli/fake-io.js";
import { createBareRepo, gitTestEnv } from "../helpers/git-repos.js";
import { callTool, reply } from "../helpers/model-script.js";
import { type LocalRegistry, startLocalRegistry } from "../helpers/npm-registry.js";
import { realSandbox } from "../helpers/sandbox.js";

const exec = promisify(execFile);

/**
 * A prompt job (`@agent fix this`, `patchwright run --repo`) on a project
 * whose package.json pins yarn 4, with no yarn on the PATH (the App's
 * image, a runner without pnpm/action-setup): setup's `yarn install`, the
 * agent's `yarn test` and verify's all failed with `yarn: command not
 * found`. Real corepack fetches the real yarn from verdaccio in setup's
 * sandbox (its network), and the agent's and verify's sandboxes, which have
 * no network, start what it fetched; a project that keeps its release file
 * runs that, fetching nothing.
 */

const YARN = fileURLToPath(
  new URL("../../node_modules/@yarnpkg/cli-dist/bin/yarn.js", import.meta.url),
);
const YARN_VERSION = "4.18.1";
const RELEASE = `.yarn/releases/yarn-${YARN_VERSION}.cjs`;

let root: string;
let registry: LocalRegistry;
/** The host's PATH without the folders that hold a yarn (this repository's node_modules/.bin). */
let path: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-project-tools-"));
  registry = await startLocalRegistry(join(root, "registry"));
  await registry.publish({
    name: "@yarnpkg/cli-dist",
    version: YARN_VERSION,
    files: { "bin/yarn.js": await readFile(YARN, "utf8") },
    manifest: { bin: { yarn: "bin/yarn.js" } },
  });
  path = (process.env.PATH ?? "/usr/bin:/bin")
    .split(":")
    .filter((dir) => !dir.includes("node_modules"))
    .join(":");
}, 120_000);

afterAll(async () => {
  await registry?.close();
  await rm(root, { recursive: true, force: true });
});

const PROJECT = {
  "package.json": `${JSON.stringify(
    {
      name: "pinned",
      private: true,
      packageManager: `yarn@${YARN_VERSION}`,
      scripts: { test: "node test.js" },
    },
    null,
    2,
  )}\n`,
  ".yarnrc.yml": "enableTelemetry: false\n",
  ".gitignore": ".yarn/*\n!.yarn/releases\n.pnp.*\nyarn.lock\n",
  "test.js": 'console.log("project tests passed on node " + process.version);\n',
};

async function run(
  name: string,
  files: Record<string, string>,
  options: {
    registry?: string;
    tools?: ProjectToolsSource;
    setupNetwork?: NetworkPolicy;
    setup?: string[];
  } = {},
) {
  const dir = await mkdtemp(join(root, `${name}-`));
  const env = {
    ...gitTestEnv(join(dir, "home")),
    PATH: path,
    COREPACK_NPM_REGISTRY: options.registry ?? registry.url.replace(/\/$/, ""),
    // The local registry signs nothing, as this VM's mirror does not.
    COREPACK_INTEGRITY_KEYS: "0",
  };
  const repo = createBareRepo({ root: dir, env, files, name });
  const model = createScriptedModel([
    callTool("run_shell", { command: "yarn test" }, { say: "Run the tests first." }),
    callTool("write_file", { file_path: "NOTES.md", content: "tests pass\n" }),
    reply("The tests pass; noted."),
  ]);
  const steps: string[] = [];
  const warnings: string[] = [];
  const input: ChangeInput = {
    cloneUrl: repo.url,
    model,
    branchTitle: "Check the tests",
    branchPrefix: "agent/",
    task: "Run the tests",
    policy: { preset: "default", allow: [], deny: [] },
    limits: { maxTurns: 5, maxCostUsd: 5, maxDurationMs: 600_000 },
    setup: options.setup ?? ["yarn install"],
    verify: "yarn test",
    network: { kind: "off" },
    setupNetwork: options.setupNetwork ?? { kind: "on" },
    squash: false,
    identity: { name: "patchwright[bot]", email: "bot@example.com" },
    push: false,
  };
  const result: ChangeResult = await runChange(
    {
      cacheDir: join(dir, "cache"),
      sandbox: await realSandbox(),
      secrets: [],
      envSource: env,
      clock: Date,
      projectTools: options.tools ?? detectProjectTools,
    },
    input,
    jobEvents({ step: (s) => steps.push(s), warning: (w) => warnings.push(w) }),
  );
  /** What the agent's `yarn test` printed, as the model was sent it. */
  const agentSaw = JSON.stringify(model.requests[1]?.messages.at(-1));
  return { result, steps, warnings, agentSaw };
}

describe("the project's package manager in a prompt job", () => {
  it("fetches the yarn package.json pins through corepack once, in setup, and the agent and verify run it offline", async () => {
    // `corepack enable`, as CI runs it: it linked the tools beside node, read-only here (EROFS).
    const setup = ["corepack enable", "yarn install"];
    const { result, steps, warnings, agentSaw } = await run("corepack", PROJECT, { setup });
    expect(warnings).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(steps.slice(0, 4)).toEqual([
      "Preparing the workspace",
      `Fetching yarn@${YARN_VERSION} through corepack`,
      "Running setup: `corepack enable`",
      "Running setup: `yarn install`",
    ]);
    expect(agentSaw).toContain("project tests passed");
    expect(agentSaw).not.toContain("command not found");
    expect(result.verify).toMatchObject({ command: "yarn test", passed: true });
    expect(result.verify?.outputTail).toContain("project tests passed");
    // Nothing of the job's tools is in the workspace or the change.
    expect(result.commits.map((c) => c.files)).toEqual([["NOTES.md"]]);
  }, 120_000);

  it("fetches through the allow-list proxy when setup's network is a host list", async () => {
    const port = new URL(registry.url).port;
    const { result, steps, warnings } = await run("hosts", PROJECT, {
      setupNetwork: networkPolicy([`127.0.0.1:${port}`]),
    });
    expect(warnings).toEqual([]);
    expect(steps).toContain(`Fetching yarn@${YARN_VERSION} through corepack`);
    expect(result.verify).toMatchObject({ command: "yarn test", passed: true });
  }, 120_000);

  it("runs the release file the project keeps, fetching nothing", async () => {
    const files = {
      ...PROJECT,
      ".yarnrc.yml": `enableTelemetry: false\nyarnPath: ${RELEASE}\n`,
      [RELEASE]: await readFile(YARN, "utf8"),
      // Developed on a Node no job here has: the job says so, and goes on.
      ".nvmrc": "99\n",
    };
    // corepack would have to reach this registry first: nothing answers there.
    const { result, steps, agentSaw } = await run("release", files, {
      registry: "http://127.0.0.1:9",
    });
    expect(result.error).toBeUndefined();
    expect(steps).not.toContainEqual(expect.stringContaining("Fetching"));
    expect(agentSaw).toContain("project tests passed");
    expect(result.verify).toMatchObject({ passed: true });
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^the project wants Node 99\.x \(\.nvmrc\), and the job's commands run Node /,
      ),
    ]);
  }, 120_000);

  it("says when corepack cannot fetch the tool, and goes on with the PATH's", async () => {
    const { result, warnings } = await run("unreachable", PROJECT, {
      registry: "http://127.0.0.1:9",
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`yarn@${YARN_VERSION} through corepack could not be fetched`);
    expect(warnings[0]).toContain("the job's commands use the PATH's yarn, if any");
    // Corepack's own words, not the last lines of its stack trace.
    expect(warnings[0]).toContain("Error when performing the request to http://127.0.0.1:9/");
    // This PATH has none: setup says so, as it did before.
    expect(result.error?.stage).toBe("setup");
    expect(result.error?.message).toContain("yarn: command not found");
    // The job's result keeps it for the thread's answer and the CLI's summary.
    expect(result.warnings).toEqual(warnings);
  }, 120_000);

  it("says which Node a fetched release needs when it cannot run on the commands' Node", async () => {
    // As pnpm 11 on Node 20: corepack fetches it, and it dies loading node:sqlite.
    const dies = 'require("node:sqlite");\n';
    await registry.publish({
      name: "pnpm",
      version: "99.0.0",
      files: { "bin/pnpm.cjs": dies, "bin/pnpx.cjs": dies },
      manifest: { bin: { pnpm: "bin/pnpm.cjs" }, engines: { node: ">=99" } },
    });
    const pinned = JSON.parse(PROJECT["package.json"]);
    const files = {
      ...PROJECT,
      "package.json": JSON.stringify({ ...pinned, packageManager: "pnpm@99.0.0" }),
    };
    const { result, warnings } = await run("engines", files, { setup: ["pnpm install"] });
    const node = (await exec("node", ["--version"], { env: { PATH: path } })).stdout.trim();
    expect(warnings).toEqual([
      expect.stringContaining("pnpm@99.0.0 through corepack cannot run here"),
    ]);
    expect(warnings[0]).toContain(
      `pnpm 99.0.0 (package.json "packageManager") needs Node >=99, and the job's commands run Node ${node.slice(1)}, the first \`node\` on the PATH`,
    );
    expect(result.warnings).toEqual(warnings);
    expect(result.error?.message).toContain("pnpm: command not found");
  }, 120_000);

  it("does without, as before, when no detector is given", async () => {
    const none: ProjectToolsSource = async () => undefined;
    const { result } = await run("none", PROJECT, { tools: none });
    expect(result.error?.message).toContain("yarn: command not found");
  }, 120_000);
});

describe("the project's package manager in `patchwright run` on a checkout", () => {
  it("starts the pinned yarn from the corepack cache the user has, read-only, with no network", async () => {
    const dir = await mkdtemp(join(root, "local-"));
    const home = join(dir, "corepack");
    // What the user's own `yarn` left in corepack's cache.
    await exec("bash", ["-c", "corepack yarn --version"], {
      cwd: await checkout(join(dir, "seed"), PROJECT),
      env: {
        PATH: path,
        HOME: join(dir, "home"),
        COREPACK_HOME: home,
        COREPACK_NPM_REGISTRY: registry.url.replace(/\/$/, ""),
        COREPACK_INTEGRITY_KEYS: "0",
        COREPACK_ENABLE_DOWNLOAD_PROMPT: "0",
      },
    });
    const work = await checkout(join(dir, "work"), PROJECT);
    const model = createScriptedModel([
      callTool("run_shell", { command: "yarn --version" }),
      callTool("write_file", {
        file_path: "w.js",
        content:
          'console.log(require("fs").readFileSync(process.env.HOME + "/.config/pnpm/rc", "utf8"));\nrequire("fs").writeFileSync(process.env.COREPACK_HOME + "/w", "");\n',
      }),
      callTool("run_shell", { command: "node w.js" }),
      reply("done"),
    ]);
    const { code } = await runMain(["run", "check yarn", "--cwd", work], {
      env: {
        ...gitTestEnv(join(dir, "home")),
        PATH: path,
        COREPACK_HOME: home,
        ANTHROPIC_API_KEY: "sk-ant-test-0123456789abcdef",
      },
      cwd: work,
      model: () => model,
    });
    expect(code).toBe(0);
    const saw = JSON.stringify(model.requests[1]?.messages.at(-1));
    expect(saw).toContain(YARN_VERSION);
    expect(saw).not.toContain("not found");
    // Read-only: the checkout's code cannot change the releases the user's other projects run.
    const wrote = JSON.stringify(model.requests[3]?.messages.at(-1));
    expect(wrote).toContain("EROFS");
    // The run's own HOME holds pnpm's store: pnpm would have made one in the checkout.
    expect(wrote).toContain("store-dir=/tmp/home/.local/share/pnpm/store");
  }, 120_000);
});

/** A plain checkout of `files` at `dir`. */
async function checkout(dir: string, files: Record<string, string>): Promise<string> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}
