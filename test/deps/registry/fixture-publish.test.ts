import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, type TempDir } from "../../helpers/git-repos.js";
import { deprecateVersion, publishPackage, writePackage } from "../../helpers/npm-publish.js";
import { type LocalRegistry, startLocalRegistry } from "../../helpers/npm-registry.js";

/**
 * The tests publish their fixture packages with the registry's publish
 * request instead of `npm publish` (test/helpers/npm-publish.ts). Here each
 * kind of fixture is published both ways, under two names, and the registry
 * must store the same for both: the version's manifest as the registry
 * serves it (npm's changes to it included) and the files in the tarball.
 * Deprecations are made the same way instead of with `npm deprecate`, and
 * checked against it likewise.
 */

const run = promisify(execFile);

let tmp: TempDir;
let registry: LocalRegistry;
beforeAll(async () => {
  tmp = makeTempDir("pw-fixture-publish-");
  registry = await startLocalRegistry(tmp.path);
});
afterAll(async () => {
  await registry?.close();
  tmp?.remove();
});

const CASES: Array<{
  what: string;
  name: string;
  manifest: Record<string, unknown>;
  files: Record<string, string>;
}> = [
  {
    what: "a GitHub shorthand, scripts, dependencies and a bin",
    name: "cmp-short",
    manifest: {
      repository: "github:example/cmp",
      scripts: { postinstall: "node -e 0" },
      dependencies: { "cmp-other": "^1.0.0" },
      bin: { cmp: "index.js" },
    },
    files: { "index.js": "module.exports = 1;\n" },
  },
  {
    what: "a repository object with a GitHub URL",
    name: "cmp-object",
    manifest: { repository: { type: "git", url: "git+https://github.com/example/cmp.git" } },
    files: { "index.js": "module.exports = 2;\n" },
  },
  {
    what: "a scoped package with nested files and no repository",
    name: "@private/cmp",
    manifest: { description: "nested", engines: { node: ">=20" } },
    files: { "index.js": "module.exports = 3;\n", "lib/deep/a.js": "exports.a = 1;\n" },
  },
];

async function viaNpm(
  name: string,
  manifest: Record<string, unknown>,
  files: Record<string, string>,
) {
  const dir = join(tmp.path, "npm", name);
  await writePackage(dir, { name, version: "1.0.0", ...manifest }, files);
  await run("npm", ["publish", "--ignore-scripts", "--registry", registry.url], {
    cwd: dir,
    env: registry.npmEnv,
  });
}

/** The version's manifest as served, without what names or hashes the tarball, and its files. */
async function stored(name: string) {
  const headers = { authorization: `Bearer ${registry.token}` };
  const packument = (await (
    await fetch(new URL(name.replace("/", "%2f"), registry.url), { headers })
  ).json()) as {
    "dist-tags": Record<string, string>;
    versions: Record<string, Record<string, unknown> & { dist: { tarball: string } }>;
  };
  const version = packument.versions["1.0.0"];
  if (!version) throw new Error(`${name}@1.0.0 is not in the registry`);
  const { _id, name: _name, dist, _npmVersion, _nodeVersion, ...manifest } = version;
  const tarball = Buffer.from(await (await fetch(dist.tarball, { headers })).arrayBuffer());
  const out = join(tmp.path, "unpacked", name);
  const file = join(tmp.path, "unpacked", `${name.replace("/", "-")}.tgz`);
  await mkdir(out, { recursive: true });
  await writeFile(file, tarball);
  await run("tar", ["-xzf", file, "-C", out]);
  const files: Record<string, string> = {};
  for (const entry of await readdir(out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const text = await readFile(path, "utf8");
    // package.json holds the name, which differs by design.
    files[relative(out, path)] = path.endsWith("package.json")
      ? JSON.stringify({ ...JSON.parse(text), name: "-" })
      : text;
  }
  return { tags: packument["dist-tags"], manifest, files };
}

describe("a fixture published with the publish request", () => {
  it.each(CASES)(
    "is stored as `npm publish` stores it: $what",
    async ({ name, manifest, files }) => {
      const direct = `${name}-direct`;
      await viaNpm(name, manifest, files);
      await publishPackage(
        { url: registry.url, token: registry.token },
        join(tmp.path, "direct", direct),
        { name: direct, version: "1.0.0", ...manifest },
        files,
      );
      const [byNpm, byRequest] = await Promise.all([stored(name), stored(direct)]);
      expect(byRequest.tags).toEqual(byNpm.tags);
      expect(byRequest.manifest).toEqual(byNpm.manifest);
      expect(Object.keys(byRequest.files).sort()).toEqual(Object.keys(byNpm.files).sort());
      expect(byRequest.files).toEqual(byNpm.files);
    },
  );

  it("deprecates a version as `npm deprecate` does: the full and the abbreviated document", async () => {
    const message = "1.1.0 lost the greeting; use 1.0.1";
    const target = { url: registry.url, token: registry.token };
    for (const name of ["cmp-dep", "cmp-dep-direct"]) {
      for (const version of ["1.0.0", "1.1.0"])
        await publishPackage(
          target,
          join(tmp.path, "dep", name, version),
          { name, version },
          {
            "index.js": "module.exports = 0;\n",
          },
        );
    }
    await run("npm", ["deprecate", "cmp-dep@1.1.0", message, "--registry", registry.url], {
      env: registry.npmEnv,
    });
    await deprecateVersion(target, "cmp-dep-direct", "1.1.0", message);
    // What installers read (the abbreviated document) and what `npm view` reads.
    const served = async (name: string, accept: string) => {
      const doc = (await (
        await fetch(new URL(name, registry.url), {
          headers: { authorization: `Bearer ${registry.token}`, accept },
        })
      ).json()) as { versions: Record<string, { deprecated?: string }> };
      return Object.fromEntries(
        Object.entries(doc.versions).map(([version, manifest]) => [version, manifest.deprecated]),
      );
    };
    for (const accept of ["application/json", "application/vnd.npm.install-v1+json"]) {
      const byNpm = await served("cmp-dep", accept);
      expect(byNpm).toEqual({ "1.0.0": undefined, "1.1.0": message });
      expect(await served("cmp-dep-direct", accept)).toEqual(byNpm);
    }
    await expect(deprecateVersion(target, "cmp-dep-direct", "9.9.9", message)).rejects.toThrow(
      "cmp-dep-direct@9.9.9 is not published here",
    );
  });

  it("says what the registry answered when it refuses", async () => {
    await expect(
      publishPackage(
        { url: registry.url, token: "not-a-token" },
        join(tmp.path, "refused"),
        { name: "cmp-refused", version: "1.0.0" },
        { "index.js": "" },
      ),
    ).rejects.toThrow(/publishing cmp-refused@1\.0\.0: 40[13]/);
  });
});
