import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { createScriptedModel } from "../../../src/agent/model/scripted.js";
import { main } from "../../../src/cli/main.js";
import { defaultDepsConfig, parseDepsConfig } from "../../../src/deps/config.js";
import { scriptApproval } from "../../../src/deps/plan/install-scripts.js";
import { planDepsUpdates } from "../../../src/deps/plan/plan.js";
import { pnpmScriptPolicy } from "../../../src/deps/plan/pnpm-builds.js";
import { renderDepsPlan } from "../../../src/deps/plan/render-plan.js";
import { gitTestEnv } from "../../helpers/git-repos.js";
import { git, makeRepo, makeTempDir } from "../../helpers/temp-dir.js";
import { TOOLS } from "../manager-projects.js";
import { NVMRC_24 } from "../memory-registry.js";
import { createFixtureWorld, demoAppFiles, type FixtureWorld } from "../registry-fixtures.js";

const run = promisify(execFile);
let world: FixtureWorld;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-deps-plan-"));
  world = await createFixtureWorld(root);
}, 120_000);

afterAll(async () => {
  await world?.registry.close();
  await rm(root, { recursive: true, force: true });
});

async function demoApp(extra: Record<string, string> = {}): Promise<string> {
  const dir = await makeTempDir("pw-demo-");
  const files = { ...(await demoAppFiles(world)), ...extra };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const env = () => ({ HOME: join(root, "nohome"), PATH: process.env.PATH });

describe("planDepsUpdates against a local registry", () => {
  it("picks the newest acceptable versions and groups them", async () => {
    const dir = await demoApp();
    const { plan } = await planDepsUpdates({
      dir,
      config: defaultDepsConfig(),
      env: env(),
      clock: { now: () => world.now },
    });

    expect(plan.registry).toBe(world.registry.url);
    expect(plan.manifests).toEqual(["package.json", "packages/lib/package.json"]);
    const summary = plan.groups.map((g) => ({
      slug: g.slug,
      updates: g.updates.map((u) => `${u.name} ${u.from}->${u.to} ${u.type}`),
    }));
    expect(summary).toEqual([
      {
        slug: "minor-and-patch",
        updates: [
          "fx-broken 1.0.0->1.1.0 minor",
          "fx-greet 1.0.0->1.0.1 patch",
          "fx-util 1.2.0->1.2.1 patch",
        ],
      },
    ]);
    const greetPatch = plan.groups[0]?.updates.find((u) => u.name === "fx-greet");
    // Both workspaces declare fx-greet; both move, each in its own style.
    expect(greetPatch?.locations.map((l) => [l.manifest, l.spec, l.newSpec])).toEqual([
      ["package.json", "^1.0.0", "^1.0.1"],
      ["packages/lib/package.json", "^1.0.0", "^1.0.1"],
    ]);
    expect(greetPatch?.passedOver).toEqual([
      "1.1.0: deprecated: 1.1.0 lost the greeting; use 1.0.1",
    ]);
    expect(greetPatch?.links.releases).toBe("https://github.com/example/fx-greet/releases");
    const util = plan.groups[0]?.updates.find((u) => u.name === "fx-util");
    expect(util?.locations[0]?.newSpec).toBe("~1.2.1");
    expect(util?.newInstallScripts).toEqual(["postinstall"]);
    expect(plan.groups[0]?.updates.find((u) => u.name === "fx-broken")?.locations[0]?.newSpec).toBe(
      "1.1.0",
    );
    expect(plan.skipped).toEqual([
      {
        name: "fx-new",
        manifest: "package.json",
        reason: "1.0.0 kept: 1.0.1: released 1 hour ago, inside the 3 days cooldown",
      },
      // One pull request per package: the major is said, not dropped, and waits for the patch.
      {
        name: "fx-greet",
        manifest: "package.json",
        reason:
          "1.0.0 -> 2.0.0 (major) waits until the update to 1.0.1 is merged: one pull request per package at a time",
      },
    ]);
    // The engines check used the Node this job runs on: the demo app names none.
    expect(plan.node.development).toMatchObject({
      role: "running",
      label: process.version.slice(1),
    });
    expect(world.registry.advisoryRequests.at(-1)).toMatchObject({
      "fx-greet": ["1.0.0"],
      "fx-util": ["1.2.0"],
    });
  });

  it("honours ignore rules, update types and a shorter cooldown", async () => {
    const dir = await demoApp();
    const parsed = parseDepsConfig({
      cooldown_days: 0,
      update_types: ["patch", "minor"],
      ignore: ["fx-broken", { name: "fx-util", update_types: ["patch"] }],
    });
    if (!parsed.ok) throw new Error(parsed.message);
    const { plan } = await planDepsUpdates({
      dir,
      config: parsed.config,
      env: env(),
      clock: { now: () => world.now },
    });
    expect(plan.groups.map((g) => g.updates.map((u) => `${u.name}@${u.to}`))).toEqual([
      ["fx-greet@1.0.1", "fx-new@1.0.1"],
    ]);
    // Both updates are patches; the group keeps the name its branch has.
    expect(plan.groups.map((g) => [g.name, g.slug])).toEqual([
      ["minor and patch", "minor-and-patch"],
    ]);
    expect(plan.skipped.map((s) => `${s.name} (${s.manifest}): ${s.reason}`)).toEqual([
      "fx-broken (package.json): ignored by deps.ignore",
      "fx-greet (package.json): newer major not proposed: 2.1.0: major updates are not enabled (deps.update_types)",
      "fx-util (package.json): 1.2.0 kept: 1.2.1: ignored by deps.ignore (fx-util patch)",
      "fx-greet (packages/lib/package.json): newer major not proposed: 2.1.0: major updates are not enabled (deps.update_types)",
    ]);
  });

  it("never proposes what the package manager's min-release-age would refuse, whatever the cooldown", async () => {
    const files = await demoAppFiles(world);
    const dir = await demoApp({ ".npmrc": `${files[".npmrc"]}min-release-age=15\n` });
    const parsed = parseDepsConfig({ cooldown_days: 0, update_types: ["patch", "minor"] });
    if (!parsed.ok) throw new Error(parsed.message);
    const { plan } = await planDepsUpdates({
      dir,
      config: parsed.config,
      env: env(),
      clock: { now: () => world.now },
    });
    expect(plan.releaseAge?.source).toBe("min-release-age=15 (.npmrc)");
    // fx-broken 1.1.0 is 20 days old; fx-util 1.2.1 is 10 days old, fx-new 1.0.1 an hour.
    expect(plan.groups.flatMap((g) => g.updates.map((u) => `${u.name}@${u.to}`))).toEqual([
      "fx-broken@1.1.0",
      "fx-greet@1.0.1",
    ]);
    expect(plan.skipped.map((s) => `${s.name}: ${s.reason}`)).toContain(
      "fx-util: 1.2.0 kept: 1.2.1: released 10 days ago; the package manager refuses it before 15 days (min-release-age=15 (.npmrc))",
    );
  });

  it("prints the plan with `patchwright deps --dry-run`, without an API key or GitHub", async () => {
    const dir = await demoApp({
      ".github/patchwright.yml":
        "deps:\n  groups:\n    - name: fixtures\n      patterns: ['fx-*']\n",
    });
    let out = "";
    let err = "";
    const code = await main(["deps", "--cwd", dir, "--dry-run"], {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      env: env(),
      cwd: root,
      clock: { now: () => world.now },
      onInterrupt: () => () => {},
    });
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toContain(
      `Node ${process.version.slice(1)} (the Node running this job: the project names no development Node).`,
    );
    expect(out).toContain("Bump the fixtures group: 3 updates  (branch agent/deps/fixtures)");
    expect(out).toMatch(
      /fx-greet +1\.0\.0 -> 1\.0\.1 {2}\(patch, released 200 days ago; package\.json, packages\/lib\/package\.json\)/,
    );
    expect(out).toContain(
      "fx-util    1.2.0 -> 1.2.1  (patch, released 10 days ago; package.json)  ! new postinstall script",
    );
    expect(out).toContain(
      "fx-greet (package.json): 1.0.0 -> 2.0.0 (major) waits until the update to 1.0.1 is merged",
    );
    expect(out).toContain("fx-new (package.json): 1.0.0 kept: 1.0.1: released 1 hour ago");
  });

  it("says when groups would wait for max_open_prs, in a bun project as in any other", async () => {
    const dir = await demoApp({
      "bun.lock": "{}\n",
      "package.json": JSON.stringify({
        ...JSON.parse((await demoAppFiles(world))["package.json"] ?? "{}"),
        packageManager: "bun@1.2.0",
        // npm's field: bun keeps its own list (trustedDependencies).
        allowScripts: { "fx-util@1.2.0": true },
      }),
      "packages/lib/package.json":
        '{"name": "@demo/lib", "dependencies": {"fx-greet": "^1.0.0", "demo-app": "*"}}',
    });
    const parsed = parseDepsConfig({
      max_open_prs: 1,
      groups: [{ name: "greet", patterns: ["fx-greet"] }],
    });
    if (!parsed.ok) throw new Error(parsed.message);
    const { plan } = await planDepsUpdates({
      dir,
      config: parsed.config,
      env: env(),
      clock: { now: () => world.now },
    });
    const text = renderDepsPlan(plan, { now: world.now, branchPrefix: "agent/" });
    // bun writes the lockfile now: no warning, bun named as the tool.
    expect(text.split("\n")[0]).toMatch(
      // The demo app's package-lock.json is still beside bun.lock: named, left as it is.
      /^Registry \S+; 2 package\.json files; bun \(package\.json packageManager bun@1\.2\.0\); package-lock\.json is here too, another tool's lockfile: left as it is, its versions fall behind\.$/,
    );
    expect(text).toContain("(branch agent/deps/greet)\n");
    expect(text).toContain("(branch agent/deps/minor-and-patch; waits: deps.max_open_prs is 1)");
    expect(text).toContain(
      "1 dependency is on this workspace's own packages (linked by bun, not bumped).",
    );
    expect(text).toContain("! new postinstall script");
    expect(text).not.toContain("allowScripts");
  });

  it("reads a scoped package from the scope's registry with the token .npmrc names", async () => {
    await world.registry.publish({ name: "@private/kit", version: "1.0.0" });
    await world.registry.publish({ name: "@private/kit", version: "1.1.0" });
    await world.registry.setPublishTime(
      "@private/kit",
      "1.1.0",
      new Date(world.now - 30 * 86_400_000),
    );
    const host = new URL(world.registry.url).host;
    const dir = await makeTempDir("pw-scoped-");
    await writeFile(join(dir, "package.json"), '{"dependencies": {"@private/kit": "^1.0.0"}}\n');
    await writeFile(
      join(dir, ".npmrc"),
      // The default registry is a closed port: only the scope's registry may be asked.
      [
        "registry=http://127.0.0.1:9/",
        `@private:registry=${world.registry.url}`,
        `//${host}/:_authToken=${"$"}{PRIVATE_TOKEN}`,
        "",
      ].join("\n"),
    );
    // No lockfile: auto would leave an in-range update to npm; this test is about reaching the registry.
    const parsed = parseDepsConfig({ range_strategy: "bump" });
    if (!parsed.ok) throw new Error(parsed.message);
    const bumpConfig = parsed.config;
    const plan = async (token: string) =>
      (
        await planDepsUpdates({
          dir,
          config: bumpConfig,
          env: { ...env(), PRIVATE_TOKEN: token },
          clock: { now: () => world.now },
        })
      ).plan;
    const ok = await plan(world.registry.token);
    // With what was skipped, and why: once, under a loaded suite, no group came back.
    expect({
      updates: ok.groups[0]?.updates.map((u) => `${u.name} ${u.from}->${u.to}`),
      skipped: ok.skipped,
    }).toEqual({ updates: ["@private/kit 1.0.0->1.1.0"], skipped: [] });
    const denied = await plan("wrong-token");
    expect(denied.groups).toEqual([]);
    expect(denied.skipped[0]?.reason).toMatch(
      /^@private\/kit: access denied \(40[13]\); check the token for this registry in \.npmrc on http:\/\/127\.0\.0\.1/,
    );
  });

  it("runs the groups without --dry-run and pushes their branches back to the checkout", async () => {
    const dir = await makeRepo({
      ...(await demoAppFiles(world)),
      ".github/patchwright.yml": "deps:\n  update_types: [patch]\n  ignore: [fx-broken, fx-util]\n",
    });
    const home = join(root, "cli-home");
    let out = "";
    let err = "";
    const code = await main(["deps", "--cwd", dir, "--cache-dir", join(root, "cli-cache")], {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      env: {
        ...gitTestEnv(home),
        npm_config_cache: join(root, "cli-npm-cache"),
        ANTHROPIC_API_KEY: "sk-test",
        GIT_AUTHOR_NAME: "Ada Lovelace",
        GIT_AUTHOR_EMAIL: "ada@example.com",
      },
      cwd: root,
      clock: { now: () => world.now },
      onInterrupt: () => () => {},
      createModel: () => createScriptedModel([]),
    });
    expect(out).toContain(
      // Only patches are enabled, and the group's name says so.
      "GREEN   Bump fx-greet from 1.0.0 to 1.0.1 -> agent/deps/patch",
    );
    expect(code).toBe(0);
    expect(err).toContain("Verifying: npm test…");
    expect(err).not.toContain("`");
    expect(git(dir, "show", "agent/deps/patch:package.json")).toContain('"fx-greet": "^1.0.1"');
    expect(git(dir, "log", "-1", "--format=%s", "agent/deps/patch").trim()).toBe(
      "chore(deps): bump fx-greet from 1.0.0 to 1.0.1",
    );
    // A local run commits as the user, as `patchwright run` does.
    expect(git(dir, "log", "-1", "--format=%an <%ae>", "agent/deps/patch").trim()).toBe(
      "Ada Lovelace <ada@example.com>",
    );
  }, 120_000);

  it("says which new versions' install scripts package.json's allowScripts leaves unreviewed", async () => {
    const demo = JSON.parse((await demoAppFiles(world))["package.json"] ?? "{}");
    // Pinned to the version someone reviewed, as `npm approve-scripts` writes it.
    const dir = await demoApp({
      "package.json": JSON.stringify({ ...demo, allowScripts: { "fx-util@1.2.0": true } }),
    });
    const { plan } = await planDepsUpdates({
      dir,
      config: defaultDepsConfig(),
      env: env(),
      clock: { now: () => world.now },
    });
    const updates = plan.groups.flatMap((g) => g.updates);
    expect(updates.find((u) => u.name === "fx-util")?.unapprovedScripts).toEqual({
      tool: "npm",
      scripts: ["postinstall"],
      otherVersions: ["fx-util@1.2.0"],
    });
    // fx-greet and fx-broken run no install script.
    expect(updates.filter((u) => u.unapprovedScripts).map((u) => u.name)).toEqual(["fx-util"]);
    expect(renderDepsPlan(plan, { now: world.now, branchPrefix: "agent/" })).toContain(
      "! new postinstall script  ! postinstall not approved in allowScripts (it approves fx-util@1.2.0)",
    );
  });

  // The rules are npm's (arborist's script-allowed.js); this holds them to the npm on this machine.
  /** Eight packages at 1.0.0 with a postinstall, for one policy's cases each: fx-<kind>-pinned, ..., @fx/<kind>. */
  async function publishHooked(kind: string): Promise<string[]> {
    const cases = ["pinned", "old-pin", "either", "range", "bare", "denied", "unlisted"];
    const names = [...cases.map((c) => `fx-${kind}-${c}`), `@fx/${kind}`];
    for (const name of names) {
      await world.registry.publish({
        name,
        version: "1.0.0",
        manifest: { scripts: { postinstall: "node -e 0" } },
      });
    }
    return names;
  }

  it("reads allowScripts as npm does (npm approve-scripts --allow-scripts-pending)", async () => {
    const dir = await makeTempDir("pw-allow-scripts-");
    const hooked = await publishHooked("hook");
    const policy = {
      "fx-hook-pinned@1.0.0": true,
      "fx-hook-old-pin@0.9.0": true,
      "fx-hook-either@0.9.0 || 1.0.0": true,
      "fx-hook-bare": true,
      "fx-hook-denied": false,
      "@fx/hook@1.0.0": true,
    };
    const manifest = {
      name: "allow-scripts-probe",
      version: "1.0.0",
      dependencies: Object.fromEntries(hooked.map((name) => [name, "1.0.0"])),
      allowScripts: policy,
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
    const npm = async (...args: string[]) =>
      (
        await run("npm", [...args, "--registry", world.registry.url], {
          cwd: dir,
          env: world.registry.npmEnv,
          encoding: "utf8",
        })
      ).stdout;
    await npm("install", "--ignore-scripts", "--no-audit", "--no-fund");
    /** The packages npm lists as not covered by allowScripts under `policy`. */
    const pending = async (entries: Record<string, boolean>) => {
      await writeFile(
        join(dir, "package.json"),
        JSON.stringify({ ...manifest, allowScripts: entries }),
      );
      const out = await npm("approve-scripts", "--allow-scripts-pending", "--json");
      const listed = JSON.parse(out) as { allowScripts: Array<{ name: string }> };
      return listed.allowScripts.map((entry) => entry.name).sort();
    };
    const ours = (entries: Record<string, boolean>) =>
      hooked.filter((name) => scriptApproval(entries, name, "1.0.0") === "unreviewed").sort();
    expect(await pending(policy)).toEqual(["fx-hook-old-pin", "fx-hook-range", "fx-hook-unlisted"]);
    expect(ours(policy)).toEqual(["fx-hook-old-pin", "fx-hook-range", "fx-hook-unlisted"]);
    const second = {
      "fx-hook-range@^1.0.0": true,
      "fx-hook-bare": true,
      "fx-hook-bare@1.0.0": false,
    };
    // A range approves nothing; a denial of the version wins over the name's approval.
    const everyOther = hooked.filter((name) => name !== "fx-hook-bare").sort();
    expect(await pending(second)).toEqual(everyOther);
    expect(ours(second)).toEqual(everyOther);
  }, 60_000);

  it("reads pnpm's build settings as pnpm does (pnpm ignored-builds after a real install)", async () => {
    const dir = await makeTempDir("pw-allow-builds-");
    const hooked = await publishHooked("build");
    const manifest = {
      name: "allow-builds-probe",
      version: "1.0.0",
      dependencies: Object.fromEntries(hooked.map((name) => [name, "1.0.0"])),
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
    const bin = TOOLS.pnpm;
    if (!bin) throw new Error("pnpm is a devDependency");
    const pnpm = async (...args: string[]) =>
      (
        await run(bin, args, {
          cwd: dir,
          env: { ...world.registry.npmEnv, COREPACK_ENABLE_STRICT: "0" },
          encoding: "utf8",
        })
      ).stdout;
    /** The packages pnpm leaves unbuilt without being told to, under `workspace` settings. */
    const ignored = async (workspace: Record<string, unknown>) => {
      await writeFile(join(dir, "pnpm-workspace.yaml"), stringifyYaml(workspace));
      await rm(join(dir, "node_modules"), { recursive: true, force: true });
      await pnpm("install", "--no-frozen-lockfile", "--registry", world.registry.url);
      const out = await pnpm("ignored-builds");
      // "Automatically ignored builds during installation:" lists them, one per line, before any other part.
      const auto = out.split(/\n\s*\n/)[0] ?? "";
      return hooked.filter((name) => new RegExp(`^\\s+${name}$`, "m").test(auto)).sort();
    };
    const ours = (workspace: Record<string, unknown>) => {
      const policy = pnpmScriptPolicy({ manifest, workspace });
      return hooked.filter((name) => policy?.approval(name, "1.0.0") === "unreviewed").sort();
    };
    const first = {
      onlyBuiltDependencies: [
        "fx-build-pinned@1.0.0",
        "fx-build-old-pin@0.9.0",
        "fx-build-either@0.9.0 || 1.0.0",
        "fx-build-bare",
        "@fx/build@1.0.0",
      ],
      ignoredBuiltDependencies: ["fx-build-denied"],
    };
    const expected = ["fx-build-old-pin", "fx-build-range", "fx-build-unlisted"];
    expect(await ignored(first)).toEqual(expected);
    expect(ours(first)).toEqual(expected);
    // allowBuilds, as `pnpm approve-builds` writes it: false denies.
    const second = {
      allowBuilds: { "fx-build-bare": true, "fx-build-denied": false, "@fx/build@1.0.0": true },
    };
    const everyOther = hooked
      .filter((name) => !["fx-build-bare", "fx-build-denied", "@fx/build"].includes(name))
      .sort();
    expect(await ignored(second)).toEqual(everyOther);
    expect(ours(second)).toEqual(everyOther);
  }, 90_000);

  it("never proposes what pnpm's trustPolicy refuses, and real pnpm refuses the same versions", async () => {
    const DAY = 86_400_000;
    // fx-trust-kept stays with its trusted publisher; fx-trust-lost loses it,
    // first to a provenance attestation only, then to nothing.
    const history: Array<[string, string, number, "trustedPublisher" | "provenance" | undefined]> =
      [
        ["fx-trust-kept", "1.0.0", 300, "trustedPublisher"],
        ["fx-trust-kept", "1.1.0", 10, "trustedPublisher"],
        ["fx-trust-lost", "1.0.0", 300, "trustedPublisher"],
        ["fx-trust-lost", "1.0.1", 20, "provenance"],
        ["fx-trust-lost", "1.1.0", 10, undefined],
      ];
    for (const [name, version, daysAgo, evidence] of history) {
      await world.registry.publish({ name, version });
      await world.registry.setPublishTime(name, version, new Date(world.now - daysAgo * DAY));
      if (evidence) await world.registry.setTrust(name, version, evidence);
    }
    const dir = await makeTempDir("pw-trust-");
    const project = (dependencies: Record<string, string>, workspace: Record<string, unknown>) =>
      Promise.all([
        writeFile(
          join(dir, "package.json"),
          JSON.stringify({
            name: "trust-probe",
            version: "1.0.0",
            packageManager: "pnpm@10.34.8",
            dependencies,
          }),
        ),
        writeFile(join(dir, "pnpm-workspace.yaml"), stringifyYaml(workspace)),
        writeFile(join(dir, ".npmrc"), `registry=${world.registry.url}\n`),
      ]);
    const policy = { trustPolicy: "no-downgrade" };
    await project({ "fx-trust-kept": "1.0.0", "fx-trust-lost": "1.0.0" }, policy);
    const parsed = parseDepsConfig({ cooldown_days: 0 });
    if (!parsed.ok) throw new Error(parsed.message);
    const plan = async () =>
      (
        await planDepsUpdates({
          dir,
          config: parsed.config,
          env: env(),
          clock: { now: () => world.now },
        })
      ).plan;
    const first = await plan();
    expect(first.groups.flatMap((g) => g.updates.map((u) => `${u.name}@${u.to}`))).toEqual([
      "fx-trust-kept@1.1.0",
    ]);
    // (The local registry has no pnpm release, which the plan says too.)
    const trustNotes = first.skipped.filter((s) => s.name !== "pnpm");
    expect(trustNotes.map((s) => `${s.name}: ${s.reason}`)).toEqual([
      "fx-trust-lost: 1.0.0 kept: 1.1.0: published with no trust evidence where an earlier release had a trusted publisher (a possible takeover); pnpm refuses it (trustPolicy: no-downgrade in pnpm-workspace.yaml)",
    ]);
    // What pnpm 10.34.8 does with each version under the same settings.
    const bin = TOOLS.pnpm;
    if (!bin) throw new Error("pnpm is a devDependency");
    const pnpmLocks = async (
      dependencies: Record<string, string>,
      workspace: Record<string, unknown>,
    ) => {
      await project(dependencies, workspace);
      return run(bin, ["install", "--lockfile-only", "--ignore-scripts"], {
        cwd: dir,
        env: { ...world.registry.npmEnv, COREPACK_ENABLE_STRICT: "0" },
        encoding: "utf8",
      }).then(
        () => "locked",
        (error: { stdout?: string }) => /ERR_PNPM_\w+/.exec(error.stdout ?? "")?.[0] ?? "failed",
      );
    };
    expect(await pnpmLocks({ "fx-trust-kept": "1.1.0" }, policy)).toBe("locked");
    expect(await pnpmLocks({ "fx-trust-lost": "1.0.1" }, policy)).toBe("ERR_PNPM_TRUST_DOWNGRADE");
    expect(await pnpmLocks({ "fx-trust-lost": "1.1.0" }, policy)).toBe("ERR_PNPM_TRUST_DOWNGRADE");
    // trustPolicyExclude lets a version through, for pnpm and for the plan alike.
    const excluded = { ...policy, trustPolicyExclude: ["fx-trust-lost@1.1.0"] };
    expect(await pnpmLocks({ "fx-trust-lost": "1.1.0" }, excluded)).toBe("locked");
    await project({ "fx-trust-kept": "1.0.0", "fx-trust-lost": "1.0.0" }, excluded);
    await rm(join(dir, "pnpm-lock.yaml"));
    const second = await plan();
    expect(second.groups.flatMap((g) => g.updates.map((u) => `${u.name}@${u.to}`))).toEqual([
      "fx-trust-kept@1.1.0",
      "fx-trust-lost@1.1.0",
    ]);
  }, 90_000);

  // After the pnpm projects: the pnpm releases it publishes would be theirs to weigh.
  it("gives a packageManager with corepack's hash the new release's hash, which corepack itself accepts", async () => {
    const DAY = 86_400_000;
    // Stand-ins for the tools, published as corepack fetches them: pnpm's whole
    // tarball is hashed, yarn 2+'s bin/yarn.js inside @yarnpkg/cli-dist.
    const tools = [
      { name: "pnpm", tool: "pnpm", old: "10.98.0", next: "10.99.0", bin: "bin/pnpm.cjs" },
      {
        name: "@yarnpkg/cli-dist",
        tool: "yarn",
        old: "4.98.0",
        next: "4.99.0",
        bin: "bin/yarn.js",
      },
    ];
    for (const { name, tool, old, next, bin } of tools) {
      for (const version of [old, next]) {
        await world.registry.publish({
          name,
          version,
          files: { [bin]: `console.log("stand-in ${tool} ${version}");\n` },
          manifest: { bin: { [tool]: bin } },
        });
        await world.registry.setPublishTime(name, version, new Date(world.now - 30 * DAY));
      }
    }
    const home = await makeTempDir("pw-corepack-home-");
    const corepack = (dir: string, tool: string) =>
      run("corepack", [tool, "--version"], {
        cwd: dir,
        env: {
          ...env(),
          COREPACK_HOME: home,
          COREPACK_NPM_REGISTRY: world.registry.url.replace(/\/$/, ""),
          // The local registry signs nothing, as this VM's mirror does not.
          COREPACK_INTEGRITY_KEYS: "0",
          COREPACK_ENABLE_DOWNLOAD_PROMPT: "0",
        },
        encoding: "utf8",
      }).then(
        (done) => done.stdout.trim(),
        (error: { stderr?: string }) =>
          /Mismatch hashes/.exec(error.stderr ?? "")?.[0] ?? error.stderr,
      );
    for (const { tool, old, next } of tools) {
      const dir = await makeTempDir(`pw-corepack-${tool}-`);
      const manifest = (field: string) =>
        writeFile(
          join(dir, "package.json"),
          JSON.stringify({ name: "app", packageManager: field }),
        );
      await writeFile(join(dir, ".npmrc"), `registry=${world.registry.url}\n`);
      await manifest(`${tool}@${old}+sha512.${"0".repeat(128)}`);
      const { plan } = await planDepsUpdates({
        dir,
        config: defaultDepsConfig(),
        env: env(),
        clock: { now: () => world.now },
      });
      const field = plan.groups
        .flatMap((g) => g.updates)
        .find((u) => u.name === tool)
        ?.locations.find((l) => l.section === "packageManager")?.newSpec;
      expect(field).toMatch(
        new RegExp(`^${tool}@${next.replaceAll(".", "\\.")}\\+sha512\\.[0-9a-f]{128}$`),
      );
      // One hex digit off, corepack refuses the release; as planned, it runs it.
      const last = field?.at(-1) === "0" ? "1" : "0";
      await manifest(`${field?.slice(0, -1)}${last}`);
      expect(await corepack(dir, tool)).toBe("Mismatch hashes");
      await manifest(field ?? "");
      expect(await corepack(dir, tool)).toBe(`stand-in ${tool} ${next}`);
    }
  }, 90_000);

  it("renders an empty plan plainly", () => {
    const text = renderDepsPlan(
      {
        registry: "https://registry.npmjs.org/",
        manifests: ["package.json"],
        groups: [],
        skipped: [],
        warnings: [],
        upToDate: 4,
        internal: 0,
        maxOpenPrs: 5,
        manager: "npm",
        node: {
          development: NVMRC_24,
          engines: {
            "package.json": {
              label: ">=16.9.0",
              version: "16.9.0",
              source: "package.json engines.node",
              role: "engines",
            },
          },
        },
      },
      { now: 0, branchPrefix: "agent/" },
    );
    expect(text).toBe(
      "Registry https://registry.npmjs.org/; 1 package.json file; npm.\nNode 24.x (from .nvmrc), runtime dependencies also checked against engines >=16.9.0.\nNo updates to propose.\n\n4 dependencies are up to date.",
    );
  });
});
