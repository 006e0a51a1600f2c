import { execFile } from "node:child_process";
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  type FixturePackage,
  type LocalRegistry,
  startLocalRegistry,
} from "../helpers/npm-registry.js";

/**
 * The fixture world of the dependency tests, published to a local verdaccio:
 * - fx-greet: 1.0.0, a patch 1.0.1, a deprecated 1.1.0, a breaking 2.0.0
 *   (greet renamed to hello) and a 2.1.0 released a day ago (in the cooldown);
 * - fx-util: 1.2.0 and 1.2.1, which adds a postinstall script;
 * - fx-broken: 1.0.0 and 1.1.0, which throws when loaded (nothing in the
 *   app can fix that);
 * - fx-new: 1.0.0 and 1.0.1 released an hour ago.
 * The demo app's lockfile is made while only the first versions exist.
 */

const run = promisify(execFile);
export const DEMO_APP = fileURLToPath(new URL("../fixtures/deps/demo-app", import.meta.url));
const DAY = 86_400_000;

const greet1 = 'exports.greet = (name) => "Hello, " + name + "!";\n';
const greet2 = 'exports.hello = (name) => "Hello, " + name + "!";\n';
const greetFiles1 = {
  "index.js": greet1,
  "index.d.ts": "export declare function greet(name: string): string;\n",
};
// 2.x renames greet to hello: its types and its changelog say so.
const greetFiles2 = {
  "index.js": greet2,
  "index.d.ts": "export declare function hello(name: string): string;\n",
  "CHANGELOG.md": [
    "# Changelog",
    "",
    "## 2.1.0",
    "- hello() trims the name.",
    "",
    "## 2.0.0",
    "- BREAKING: greet() is renamed to hello().",
    "",
    "## 1.0.1",
    "- Docs.",
    "",
  ].join("\n"),
};
const repo = (name: string) => ({
  repository: { type: "git", url: `git+https://github.com/example/${name}.git` },
});

export interface FixtureWorld {
  registry: LocalRegistry;
  /** The clock the tests use: publish times are set relative to it. */
  now: number;
  /** package-lock.json of the demo app at the first versions. */
  lockfile: string;
}

export async function createFixtureWorld(root: string): Promise<FixtureWorld> {
  const registry = await startLocalRegistry(root);
  const now = Date.now();
  const first: FixturePackage[] = [
    {
      name: "fx-greet",
      version: "1.0.0",
      files: greetFiles1,
      manifest: repo("fx-greet"),
    },
    { name: "fx-util", version: "1.2.0", manifest: { repository: "github:example/fx-util" } },
    { name: "fx-broken", version: "1.0.0" },
    { name: "fx-new", version: "1.0.0" },
  ];
  await Promise.all(first.map((pkg) => registry.publish(pkg)));

  const app = join(root, "lock-template");
  await cp(DEMO_APP, app, { recursive: true });
  await run(
    "npm",
    ["install", "--package-lock-only", "--ignore-scripts", "--registry", registry.url],
    {
      cwd: app,
      env: { ...registry.npmEnv, npm_config_cache: join(root, "lock-cache") },
    },
  );
  const lockfile = await readFile(join(app, "package-lock.json"), "utf8");

  const later: Array<() => Promise<void>> = [
    async () => {
      await registry.publish({
        name: "fx-greet",
        version: "1.0.1",
        files: greetFiles1,
        manifest: repo("fx-greet"),
      });
      await registry.publish({
        name: "fx-greet",
        version: "1.1.0",
        files: greetFiles1,
        manifest: repo("fx-greet"),
      });
      await registry.publish({
        name: "fx-greet",
        version: "2.0.0",
        files: greetFiles2,
        manifest: repo("fx-greet"),
      });
      await registry.publish({
        name: "fx-greet",
        version: "2.1.0",
        files: greetFiles2,
        manifest: repo("fx-greet"),
      });
      await registry.deprecate("fx-greet", "1.1.0", "1.1.0 lost the greeting; use 1.0.1");
    },
    () =>
      registry.publish({
        name: "fx-util",
        version: "1.2.1",
        manifest: { repository: "github:example/fx-util", scripts: { postinstall: "node -e 0" } },
      }),
    () =>
      registry.publish({
        name: "fx-broken",
        version: "1.1.0",
        files: { "index.js": 'throw new Error("fx-broken 1.1.0 cannot be loaded");\n' },
      }),
    () => registry.publish({ name: "fx-new", version: "1.0.1" }),
  ];
  await Promise.all(later.map((publish) => publish()));

  const ages: Array<[string, string, number]> = [
    ["fx-greet", "1.0.0", 300 * DAY],
    ["fx-greet", "1.0.1", 200 * DAY],
    ["fx-greet", "1.1.0", 150 * DAY],
    ["fx-greet", "2.0.0", 100 * DAY],
    ["fx-greet", "2.1.0", DAY],
    ["fx-util", "1.2.0", 300 * DAY],
    ["fx-util", "1.2.1", 10 * DAY],
    ["fx-broken", "1.0.0", 300 * DAY],
    ["fx-broken", "1.1.0", 20 * DAY],
    ["fx-new", "1.0.0", 300 * DAY],
    ["fx-new", "1.0.1", DAY / 24],
  ];
  for (const [name, version, age] of ages) {
    await registry.setPublishTime(name, version, new Date(now - age));
  }
  return { registry, now, lockfile };
}

/** The demo app's files (with its lockfile and an .npmrc pointing at the local registry). */
export async function demoAppFiles(world: FixtureWorld): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of [
    "package.json",
    "index.js",
    "test.js",
    ".gitignore",
    "packages/lib/package.json",
    "packages/lib/index.js",
  ]) {
    files[path] = await readFile(join(DEMO_APP, path), "utf8");
  }
  files["package-lock.json"] = world.lockfile;
  // No audit, fund or update checks: the local registry is the only server npm may talk to.
  files[".npmrc"] =
    `registry=${world.registry.url}\naudit=false\nfund=false\nupdate-notifier=false\n`;
  return files;
}
