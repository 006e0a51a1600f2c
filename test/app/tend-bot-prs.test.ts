import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ScriptStep } from "../../src/agent/model/scripted.js";
import { unsandboxed } from "../../src/sandbox/sandbox.js";
import { DEPENDENCY_FIX_MARKER } from "../../src/thread/kinds/dependency-pr.js";
import { lockedProject, type Manager, TOOLS } from "../deps/manager-projects.js";
import { createFixtureWorld, type FixtureWorld } from "../deps/registry-fixtures.js";
import {
  aim,
  examplePayload,
  type Harness,
  type Payload,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import {
  DEPENDABOT,
  DEPENDABOT_AUTHOR,
  failingRun,
  pullCommitsRoute,
} from "../helpers/ci-world.js";
import type { FakeRoute } from "../helpers/fake-github.js";
import { fakeActions } from "../helpers/fake-github-upkeep.js";
import { gitTestEnv } from "../helpers/git-repos.js";
import { callTool, reply } from "../helpers/model-script.js";

/**
 * Dependabot's pull requests, tended (`tend_bot_prs`), end to end through
 * the App: Dependabot's branch naming, commit message and author on a real
 * repository whose bump (fx-greet 1.0.0 -> 2.0.0, which renamed greet() to
 * hello()) breaks the tests; real `check_suite` payloads from
 * @octokit/webhooks-examples; the packages from a real registry (verdaccio
 * on loopback), so the agent is shown the package's changelog and the API
 * diff of its type definitions; the fix pushed as one commit on
 * Dependabot's branch, verified. The fake GitHub is served on loopback
 * (npm-registry-fetch, which reads the tarballs, does not work under nock).
 */

const BASE = "/repos/octo-org/demo";

// Real npm and pnpm installs, twice a test: 20 s with the suite's other
// workers on the same two cores, 30 s on a slower machine.
vi.setConfig({ testTimeout: 90_000 });

let world: FixtureWorld;
let root: string;
let harness: Harness | undefined;

beforeAll(async () => {
  // Loaded by the harness, nock's interceptor breaks the npm client's HTTP
  // agent; every server here is on loopback, so it is switched off.
  nock.restore();
  root = await mkdtemp(join(tmpdir(), "pw-tend-"));
  world = await createFixtureWorld(root);
  // A package that brings fx-broken in: what a project holds with an override without declaring it.
  await world.registry.publish({
    name: "fx-wrap",
    version: "1.0.0",
    manifest: { dependencies: { "fx-broken": "^1.0.0" } },
    files: { "index.js": 'module.exports = require("fx-broken");\n' },
  });
}, 120_000);

afterAll(async () => {
  await world?.registry.close();
  await rm(root, { recursive: true, force: true });
});

afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

const PINS: Record<"npm" | "pnpm", string> = { npm: "npm@10.9.0", pnpm: "pnpm@10.34.8" };

const pairs = new Map<string, ReturnType<typeof lockPair>>();

/** package.json's overrides, before the bump and after it. */
interface HeldBump {
  before: Record<string, string>;
  after: Record<string, string>;
  /** The project does not declare the held packages: fx-wrap brings them in. */
  transitive?: boolean;
}

/** The project at the base and as Dependabot's bump leaves it, each locked by its own tool (once per file). */
function projectPair(manager: "npm" | "pnpm", bumped: Record<string, string>, held?: HeldBump) {
  const key = `${manager} ${JSON.stringify(bumped)} ${JSON.stringify(held)}`;
  let pair = pairs.get(key);
  if (!pair) {
    pair = lockPair(manager, bumped, held);
    pairs.set(key, pair);
  }
  return pair;
}

async function lockPair(
  manager: "npm" | "pnpm",
  bumped: Record<string, string>,
  held: HeldBump | undefined,
) {
  const projects = { registry: world.registry, root, env: gitTestEnv(join(root, "home")) };
  const base: Record<string, string> = { "fx-greet": "1.0.0", "fx-util": "1.2.0" };
  if ("fx-broken" in bumped) base["fx-broken"] = "1.0.0";
  // npm wants a direct dependency's override to be its exact spec: Renovate moves both.
  const overrides = (values: Record<string, string> | undefined) =>
    values ? { "package.json": JSON.stringify({ overrides: values }) } : {};
  const lock = (deps: Record<string, string>, values: Record<string, string> | undefined) =>
    lockedProject(projects, manager as Manager, PINS[manager], deps, undefined, overrides(values));
  if (held?.transitive) base["fx-wrap"] = "1.0.0";
  const declared = (values: Record<string, string> | undefined) => (held?.transitive ? {} : values);
  const [before, after] = await Promise.all([
    lock({ ...base, ...declared(held?.before) }, held?.before),
    lock({ ...base, ...bumped, ...declared(held?.after) }, held?.after),
  ]);
  return { before, after };
}

const INDEX_V1 =
  'const { greet } = require("fx-greet");\nmodule.exports = (name) => greet(name);\n';
const TEST =
  'const say = require("./index.js");\nif (say("x") !== "Hello, x!") process.exit(1);\nconsole.log("tests passed");\n';

function dependabotMessage(name: string, from: string, to: string): string {
  return [
    `Bump ${name} from ${from} to ${to}`,
    "",
    `Bumps [${name}](https://github.com/example/${name}) from ${from} to ${to}.`,
    `- [Release notes](https://github.com/example/${name}/releases)`,
    `- [Changelog](https://github.com/example/${name}/blob/main/CHANGELOG.md)`,
    "",
    "---",
    "updated-dependencies:",
    `- dependency-name: ${name}`,
    `  dependency-version: ${to}`,
    "  dependency-type: direct:production",
    "  update-type: version-update:semver-major",
    "...",
    "",
    "Signed-off-by: dependabot[bot] <support@github.com>",
  ].join("\n");
}

interface World {
  h: Harness;
  actions: ReturnType<typeof fakeActions>;
  branch: string;
  bumpSha: string;
}

async function dependabotPr(options: {
  manager: "npm" | "pnpm";
  bumped: Record<string, string>;
  steps: ScriptStep[];
  config?: string;
  title?: string;
  test?: string;
  /** false: GitHub does not list the pull request's commits (the fake has no such route). */
  listsCommits?: boolean;
  /** The project's folder in the repository (Dependabot's `directory: /web`); default its root. */
  folder?: string;
  /** package.json's allowScripts, on both sides of the bump. */
  allowScripts?: Record<string, boolean>;
  /** Packages the bump moves through package.json's overrides too (Renovate's way). */
  held?: HeldBump;
}): Promise<World> {
  const inFolder = (path: string) => (options.folder ? `${options.folder}/${path}` : path);
  const cd = options.folder ? `cd ${options.folder} && ` : "";
  const pair = await projectPair(options.manager, options.bumped, options.held);
  const withPolicy = (files: Record<string, string>) =>
    options.allowScripts
      ? {
          ...files,
          "package.json": JSON.stringify({
            ...JSON.parse(files["package.json"] ?? "{}"),
            allowScripts: options.allowScripts,
          }),
        }
      : files;
  const [before, after] = [withPolicy(pair.before), withPolicy(pair.after)];
  const names = Object.keys(options.bumped);
  const branch =
    names.length === 1
      ? `dependabot/npm_and_yarn/${names[0]}-${options.bumped[names[0] ?? ""]}`
      : "dependabot/npm_and_yarn/npm_and_yarn-group-1a2b3c4d5e";
  const routes: FakeRoute[] = [];
  const setup = `${cd}${options.manager === "npm" ? "npm ci" : `${TOOLS.pnpm} install --frozen-lockfile`}`;
  const h = await startHarness({
    steps: options.steps,
    loopbackGitHub: true,
    // The pnpm binary lives in this repository, which the test sandbox hides (see package-managers.test.ts).
    ...(options.manager === "pnpm" ? { sandbox: unsandboxed } : {}),
    files: {
      ...Object.fromEntries(
        Object.entries({ ...before, "index.js": INDEX_V1, "test.js": options.test ?? TEST }).map(
          ([path, text]) => [inFolder(path), text],
        ),
      ),
      ".gitignore": "node_modules\n",
    },
    github: {
      configYaml:
        options.config ??
        [
          `setup: ["${setup}"]`,
          `verify: ${cd}npm test`,
          "tend_bot_prs:",
          `  bots: ["${DEPENDABOT}", "renovate[bot]"]`,
          "",
        ].join("\n"),
      routes,
    },
    env: { npm_config_registry: world.registry.url },
  });
  const actions = fakeActions(BASE);
  routes.push(...actions.routes);
  if (options.listsCommits !== false) {
    routes.push(
      pullCommitsRoute(
        BASE,
        () => h.repo.dir,
        () => branch,
      ),
    );
  }
  const lockfile = options.manager === "npm" ? "package-lock.json" : "pnpm-lock.yaml";
  const bumpSha = h.repo.push({
    branch,
    files: {
      [inFolder("package.json")]: after["package.json"] ?? "",
      [inFolder(lockfile)]: after[lockfile] ?? "",
      ...(options.held
        ? { [inFolder("pnpm-workspace.yaml")]: after["pnpm-workspace.yaml"] ?? "" }
        : {}),
    },
    message: dependabotMessage(names[0] ?? "", "1.0.0", options.bumped[names[0] ?? ""] ?? ""),
    author: DEPENDABOT_AUTHOR,
  });
  h.github.addPull({
    number: 31,
    title: options.title ?? dependabotMessage(names[0] ?? "", "1.0.0", "x").split("\n")[0] ?? "",
    body: "Bumps fx-greet. Dependabot will resolve any conflicts with this PR as long as you don't alter it yourself.",
    draft: false,
    head: {
      ref: branch,
      sha: bumpSha,
      repo: { full_name: "octo-org/demo", clone_url: h.repo.url },
    },
    base: { ref: "main", repo: { full_name: "octo-org/demo" } },
    user: { login: DEPENDABOT, type: "Bot" },
  });
  actions.runs.push(failingRun(bumpSha, "failure", CI_LOG));
  harness = h;
  return { h, actions, branch, bumpSha };
}

const CI_LOG = [
  "2026-12-01T10:00:00.0000000Z ##[group]Run npm test",
  "2026-12-01T10:00:00.1000000Z > node test.js",
  "2026-12-01T10:00:00.2000000Z ##[endgroup]",
  "2026-12-01T10:00:01.0000000Z /home/runner/work/demo/demo/index.js:2",
  "2026-12-01T10:00:01.0000000Z module.exports = (name) => greet(name);",
  "2026-12-01T10:00:01.0000000Z TypeError: greet is not a function",
  "2026-12-01T10:00:01.0000000Z     at module.exports (/home/runner/work/demo/demo/index.js:2:28)",
  "2026-12-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

/** GitHub's `check_suite` completed payload (webhooks-examples), failed on Dependabot's head. */
function checkSuiteFailed(w: World): Payload {
  const payload = aim(examplePayload("check_suite", "completed"), w.h.repo.url, {
    login: DEPENDABOT,
    type: "Bot",
  });
  const sha = w.h.repo.sha(w.branch) ?? "";
  Object.assign(payload.check_suite, {
    id: 901,
    head_branch: w.branch,
    head_sha: sha,
    conclusion: "failure",
    pull_requests: [
      {
        number: 31,
        id: 1,
        url: "x",
        head: { ref: w.branch, sha, repo: {} },
        base: { ref: "main", sha: "x", repo: {} },
      },
    ],
  });
  return payload;
}

/** Someone pushed: the pull request's head and its failed run are at `sha` now. */
function movedHead(w: World, sha: string) {
  for (const pull of w.h.github.pulls) pull.head.sha = sha;
  for (const run of w.actions.runs) run.head_sha = sha;
}

async function deliver(h: Harness, payload: Payload, id = "d-suite") {
  await h.probot.receive({ id, name: "check_suite", payload } as never);
  await h.idle();
}

const HELLO_INDEX =
  'const { hello } = require("fx-greet");\nmodule.exports = (name) => hello(name);\n';
const renameFixIn = (prefix: string): ScriptStep[] => [
  callTool("read_file", { file_path: `${prefix}index.js` }),
  callTool(
    "write_file",
    { file_path: `${prefix}index.js`, content: HELLO_INDEX },
    { say: "fx-greet 2 renamed greet() to hello()." },
  ),
  callTool("run_shell", { command: prefix ? `cd ${prefix} && npm test` : "npm test" }),
  reply("fx-greet 2.0.0 renamed greet() to hello(); index.js calls hello() now."),
];
const renameFix = renameFixIn("");

const git = (h: Harness, args: string[]) =>
  execFileSync("git", ["--git-dir", h.repo.dir, ...args], { encoding: "utf8" }).trim();
const commitsSince = (h: Harness, from: string, branch: string) =>
  git(h, ["rev-list", `${from}..${branch}`])
    .split("\n")
    .filter(Boolean);
const comments = (h: Harness) => (h.github.comments.get(31) ?? []).map((c) => c.body);

describe.each(["npm", "pnpm"] as const)(
  "a Dependabot bump that breaks the tests (%s)",
  (manager) => {
    it("gets one verified fix commit on Dependabot's branch, upstream changes in the agent's hands", async () => {
      const w = await dependabotPr({ manager, bumped: { "fx-greet": "2.0.0" }, steps: renameFix });
      await deliver(w.h, checkSuiteFailed(w));

      // Re-run first (the flaky check), then the fix.
      expect(w.actions.reruns).toEqual([901]);
      const added = commitsSince(w.h, w.bumpSha, w.branch);
      expect(added).toHaveLength(1);
      expect(w.h.repo.show(w.branch, "index.js")).toBe(HELLO_INDEX.trim());
      // The bump itself is untouched.
      expect(w.h.repo.show(w.branch, "package.json")).toContain('"fx-greet": "2.0.0"');

      const prompt = JSON.stringify(w.h.models[0]?.requests[0]?.messages);
      // What the pull request updates, read from the branch and the lockfile.
      expect(prompt).toContain("fx-greet 1.0.0 -> 2.0.0 (major, package.json)");
      expect(prompt).toContain(`opened by ${DEPENDABOT}`);
      // The changelog between the versions and the API diff of the type definitions.
      expect(prompt).toContain("BREAKING: greet() is renamed to hello().");
      expect(prompt).toMatch(/Public API, old \(-\) and new \(\+\)[\s\S]*hello/);
      // The failing CI job's log, as data.
      expect(prompt).toContain("TypeError: greet is not a function");
      // fx-util did not move: it is not an update.
      expect(prompt).not.toContain("fx-util 1.2.0 ->");

      const said = comments(w.h);
      expect(said).toHaveLength(1);
      expect(said[0]).toContain("Dependency fix attempt 1 of 2");
      expect(said[0]).toContain(DEPENDENCY_FIX_MARKER);
      expect(said[0]).toContain("`@dependabot recreate`");
      expect(said[0]).toMatch(/npm test[\s\S]*pass/i);
    });
  },
);

describe("a Dependabot bump past an install-script approval (npm's allowScripts)", () => {
  it("says in the thread which new install script the approval, pinned to the old version, does not cover", async () => {
    const w = await dependabotPr({
      manager: "npm",
      bumped: { "fx-greet": "2.0.0", "fx-util": "1.2.1" },
      steps: [
        ...renameFix.slice(0, -1),
        // Against its rules, the agent also widens the pin to every version: said in the thread.
        callTool("read_file", { file_path: "package.json" }),
        callTool("edit_file", {
          file_path: "package.json",
          old_string: '"fx-util@1.2.0":true',
          new_string: '"fx-util":true',
        }),
        ...renameFix.slice(-1),
      ],
      allowScripts: { "fx-util@1.2.0": true },
    });
    await deliver(w.h, checkSuiteFailed(w));
    expect(commitsSince(w.h, w.bumpSha, w.branch)).toHaveLength(1);
    const said = comments(w.h).at(-1) ?? "";
    expect(said).toMatch(/npm test[\s\S]*pass/i);
    expect(said).toContain(
      "**To review**\n- ⚠️ **`fx-util`** 1.2.1, which this update locks, has an install script that package.json's `allowScripts` does not approve (it approves `fx-util@1.2.0`): npm 12 and later skip it on install.",
    );
    expect(said).toContain(
      "- ⚠️ **The agent's fix loosens the project's dependency safeguards**: `fx-util` (package.json allowScripts). It was told not to",
    );
    expect(JSON.stringify(w.h.models[0]?.requests[0]?.system)).toContain(
      "Never approve a dependency's install script",
    );
  });
});

describe("a Dependabot bump in a folder of the repository (directory: /web)", () => {
  it("reads the bump from that project and fixes it there", async () => {
    const w = await dependabotPr({
      manager: "npm",
      bumped: { "fx-greet": "2.0.0" },
      steps: renameFixIn("web/"),
      folder: "web",
    });
    await deliver(w.h, checkSuiteFailed(w));
    expect(commitsSince(w.h, w.bumpSha, w.branch)).toHaveLength(1);
    expect(w.h.repo.show(w.branch, "web/index.js")).toBe(HELLO_INDEX.trim());
    const prompt = JSON.stringify(w.h.models[0]?.requests[0]?.messages);
    expect(prompt).toContain("fx-greet 1.0.0 -> 2.0.0 (major, web/package.json)");
    expect(prompt).toContain("BREAKING: greet() is renamed to hello().");
    expect(comments(w.h).at(-1)).toMatch(/npm test[\s\S]*pass/i);
  });
});

describe("what is left alone", () => {
  it("a pull request a person pushed to since Dependabot opened it", async () => {
    const w = await dependabotPr({
      manager: "npm",
      bumped: { "fx-greet": "2.0.0" },
      steps: renameFix,
    });
    w.h.repo.push({ branch: w.branch, files: { "notes.txt": "mine\n" }, message: "wip" });
    movedHead(w, w.h.repo.sha(w.branch) ?? "");
    await deliver(w.h, checkSuiteFailed(w));
    expect(w.h.models).toHaveLength(0);
    expect(comments(w.h)).toEqual([]);
    expect(commitsSince(w.h, w.bumpSha, w.branch)).toHaveLength(1);
  });

  it("a pull request a person pushed to, found in the branch when GitHub does not list its commits", async () => {
    const w = await dependabotPr({
      manager: "npm",
      bumped: { "fx-greet": "2.0.0" },
      steps: renameFix,
      listsCommits: false,
    });
    const mine = w.h.repo.push({
      branch: w.branch,
      files: { "notes.txt": "mine\n" },
      message: "wip",
    });
    movedHead(w, mine);
    await deliver(w.h, checkSuiteFailed(w));
    expect(w.h.models.flatMap((m) => m.requests)).toEqual([]);
    expect(w.h.repo.sha(w.branch)).toBe(mine);
    expect(comments(w.h).at(-1)).toContain(
      `pushed ${mine.slice(0, 7)} to this branch after ${DEPENDABOT} opened it`,
    );
  });

  it("a bot that tend_bot_prs does not list, and everything when it is not set", async () => {
    for (const config of [
      'setup: [npm ci]\nverify: npm test\ntend_bot_prs:\n  bots: ["renovate[bot]"]\n',
      "setup: [npm ci]\nverify: npm test\n",
    ]) {
      const w = await dependabotPr({
        manager: "npm",
        bumped: { "fx-greet": "2.0.0" },
        steps: renameFix,
        config,
      });
      await deliver(w.h, checkSuiteFailed(w));
      expect(w.h.models).toHaveLength(0);
      expect(comments(w.h)).toEqual([]);
      expect(w.h.repo.sha(w.branch)).toBe(w.bumpSha);
      await stopHarness(w.h);
      harness = undefined;
    }
  });

  it("a closed pull request", async () => {
    const w = await dependabotPr({
      manager: "npm",
      bumped: { "fx-greet": "2.0.0" },
      steps: renameFix,
    });
    (w.h.github.pulls[0] as { state: string }).state = "closed";
    await deliver(w.h, checkSuiteFailed(w));
    expect(w.h.models).toHaveLength(0);
    expect(comments(w.h)).toEqual([]);
  });

  it("stops at tend_bot_prs.max_attempts and says so", async () => {
    const w = await dependabotPr({
      manager: "npm",
      bumped: { "fx-greet": "2.0.0" },
      steps: renameFix,
      config: `setup: [npm ci]\nverify: npm test\ntend_bot_prs:\n  bots: ["${DEPENDABOT}"]\n  max_attempts: 1\n`,
    });
    w.h.github.comments.set(31, [
      {
        id: 1,
        body: `An earlier attempt.\n\n${DEPENDENCY_FIX_MARKER}`,
        user: { login: "patchwright[bot]" },
      } as never,
    ]);
    await deliver(w.h, checkSuiteFailed(w));
    expect(w.h.models).toHaveLength(0);
    expect(w.h.repo.sha(w.branch)).toBe(w.bumpSha);
    expect(comments(w.h).at(-1)).toContain("`tend_bot_prs.max_attempts`, is 1");
  });
});

describe("a grouped Dependabot pull request", () => {
  /**
   * A group of two where fx-broken 1.1.0 cannot work: the agent fixes
   * fx-greet and says so; the branch must come back with fx-broken at 1.0.0
   * in a commit of its own, verified.
   */
  async function putBackBroken(held?: HeldBump) {
    const steps: ScriptStep[] = [
      ...renameFix.slice(0, 2),
      reply(
        "fx-greet 2.0.0 renamed greet() to hello(); index.js calls hello() now.\n\nCannot fix: fx-broken — 1.1.0 throws as soon as it is loaded; nothing in this repository can change that.",
      ),
    ];
    const w = await dependabotPr({
      manager: "npm",
      bumped: held ? { "fx-greet": "2.0.0" } : { "fx-greet": "2.0.0", "fx-broken": "1.1.0" },
      ...(held ? { held } : {}),
      steps,
      title: "Bump the npm_and_yarn group with 2 updates",
      test: `require("${held?.transitive ? "fx-wrap" : "fx-broken"}");\n${TEST}`,
    });
    await deliver(w.h, checkSuiteFailed(w));

    const prompt = JSON.stringify(w.h.models[0]?.requests[0]?.messages);
    if (!held?.transitive) expect(prompt).toContain("fx-broken 1.0.0 -> 1.1.0");
    expect(prompt).toContain("Cannot fix: <package name>");
    const added = commitsSince(w.h, w.bumpSha, w.branch);
    expect(added).toHaveLength(2);
    expect(git(w.h, ["log", "-1", "--format=%s", w.branch])).toBe("Put fx-broken back to 1.0.0");
    const manifest = JSON.parse(w.h.repo.show(w.branch, "package.json")) as {
      dependencies: Record<string, string>;
      overrides?: Record<string, string>;
    };
    expect(manifest.dependencies).toMatchObject({
      "fx-greet": "2.0.0",
      ...(held?.transitive ? { "fx-wrap": "1.0.0" } : { "fx-broken": "1.0.0" }),
    });
    const lock = JSON.parse(w.h.repo.show(w.branch, "package-lock.json")) as {
      packages: Record<string, { version: string }>;
    };
    // Wherever npm places it (under fx-wrap when the project does not declare it).
    const broken = Object.entries(lock.packages).filter(([path]) =>
      path.endsWith("node_modules/fx-broken"),
    );
    expect(broken.map(([, entry]) => entry.version)).toEqual(["1.0.0"]);
    expect(lock.packages["node_modules/fx-greet"]?.version).toBe("2.0.0");
    const said = comments(w.h).at(-1) ?? "";
    expect(said).toContain("Put fx-broken back to 1.0.0");
    expect(said).toMatch(/npm test[\s\S]*pass/i);
    return { prompt, manifest };
  }

  it("puts back the one package the agent cannot make work, in its own commit, and keeps the rest", async () => {
    const { manifest } = await putBackBroken();
    expect(manifest.overrides).toBeUndefined();
  });

  it("puts a package Renovate moved with its override back, override and all", async () => {
    // Without the override put back too, npm refuses the pinned range (EOVERRIDE) and nothing moves.
    const { prompt, manifest } = await putBackBroken({
      before: { "fx-broken": "1.0.0" },
      after: { "fx-broken": "1.1.0" },
    });
    expect(prompt).toContain(
      `fx-broken's version is set by package.json overrides: \\"fx-broken\\" \\"1.0.0\\" -> \\"1.1.0\\"`,
    );
    expect(manifest.overrides).toEqual({ "fx-broken": "1.0.0" });
  });

  it("puts back a package it does not declare, held by an override Renovate moved", async () => {
    const { prompt, manifest } = await putBackBroken({
      before: { "fx-broken": "1.0.0" },
      after: { "fx-broken": "1.1.0" },
      transitive: true,
    });
    expect(prompt).toContain(
      `fx-broken, which the project does not declare, through package.json overrides: \\"fx-broken\\" \\"1.0.0\\" -> \\"1.1.0\\"`,
    );
    expect(manifest.dependencies["fx-broken"]).toBeUndefined();
    expect(manifest.overrides).toEqual({ "fx-broken": "1.0.0" });
  });
});
