import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  registryReleaseBytes,
  releaseFromRegistry,
  swapCommitFiles,
  writeReleaseSwap,
  yarnReleaseSwap,
} from "../../../src/deps/managers/yarn/release-file.js";
import type { Packument } from "../../../src/deps/registry/registry.js";
import type { ReleaseSwap } from "../../../src/deps/update.js";
import { makeTempDir } from "../../helpers/temp-dir.js";

/**
 * The yarn release a project keeps (`yarnPath`), replaced the way `yarn set
 * version` replaces it, from bytes the registry's integrity vouches for.
 */

const BUNDLE = { package: "@yarnpkg/cli-dist", file: "bin/yarn.js" };
const SWAP: ReleaseSwap = {
  file: ".yarn/releases/yarn-4.18.2.cjs",
  settings: ".yarnrc.yml",
  replaces: ".yarn/releases/yarn-4.18.1.cjs",
  from: BUNDLE,
};

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir("pw-yarn-release-");
});

async function put(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

describe("what a packageManager update to a new yarn needs", () => {
  it("nothing beyond the field without yarnPath", async () => {
    await put({ ".yarnrc.yml": "nodeLinker: node-modules\n" });
    expect(await yarnReleaseSwap(dir, "4.18.2")).toBeUndefined();
  });

  it("lists it when yarnPath names no file here or the release is yarn 1's", async () => {
    await put({ ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.18.1.cjs\n" });
    expect(await yarnReleaseSwap(dir, "4.18.2")).toEqual({
      held: ".yarnrc.yml's yarnPath runs .yarn/releases/yarn-4.18.1.cjs whatever the field says: run `yarn set version 4.18.2`, which replaces both",
    });
    await put({
      ".yarn/releases/yarn-4.18.1.cjs": "//\n",
      ".yarnrc.yml": "yarnPath: /opt/yarn.cjs\n",
    });
    expect(await yarnReleaseSwap(dir, "4.18.2")).toHaveProperty("held");
    await put({ ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.18.1.cjs\n" });
    expect(await yarnReleaseSwap(dir, "1.22.22")).toHaveProperty("held");
    expect(await yarnReleaseSwap(dir, "4.18.2")).toEqual({ swap: SWAP });
  });
});

describe("writing the new release in the workspace", () => {
  const settings = [
    "# the project's own words stay",
    "nodeLinker: node-modules",
    "",
    'yarnPath: ".yarn/releases/yarn-4.18.1.cjs"',
    "npmRegistryServer: http://127.0.0.1:4873",
    "",
  ].join("\n");

  for (const mode of [0o644, 0o755]) {
    it(`points yarnPath at it, keeps the old file for the job's commands, and keeps mode ${mode.toString(8)}`, async () => {
      await put({ ".yarnrc.yml": settings, ".yarn/releases/yarn-4.18.1.cjs": "// 4.18.1\n" });
      await chmod(join(dir, ".yarn/releases/yarn-4.18.1.cjs"), mode);
      const written = await writeReleaseSwap(dir, SWAP, Buffer.from("// 4.18.2\n"));
      expect(written).toEqual([SWAP.file, ".yarnrc.yml"]);
      expect(await readFile(join(dir, SWAP.file), "utf8")).toBe("// 4.18.2\n");
      expect((await stat(join(dir, SWAP.file))).mode & 0o777).toBe(mode);
      expect(await readFile(join(dir, ".yarnrc.yml"), "utf8")).toBe(
        settings.replace("yarn-4.18.1.cjs", "yarn-4.18.2.cjs"),
      );
      expect(await readFile(join(dir, ".yarn/releases/yarn-4.18.1.cjs"), "utf8")).toBe(
        "// 4.18.1\n",
      );
    });
  }

  it("commits the settings edited from their base, the new file, and the old one removed", () => {
    const files = swapCommitFiles(
      SWAP,
      new Map([
        [".yarnrc.yml", Buffer.from(settings)],
        [SWAP.file, null],
        [".yarn/releases/yarn-4.18.1.cjs", Buffer.from("// 4.18.1\n")],
      ]),
      new Map([[SWAP.file, Buffer.from("// 4.18.2\n")]]),
    );
    expect(
      Object.fromEntries([...files].map(([path, bytes]) => [path, bytes?.toString() ?? null])),
    ).toEqual({
      ".yarnrc.yml": settings.replace("yarn-4.18.1.cjs", "yarn-4.18.2.cjs"),
      [SWAP.file]: "// 4.18.2\n",
      ".yarn/releases/yarn-4.18.1.cjs": null,
    });
  });
});

describe("the release's bytes from the registry", () => {
  /** A registry tarball (package/…, gzipped), as npm pack writes one. */
  async function tarball(files: Record<string, string>): Promise<Buffer> {
    const folder = join(dir, `pack-${Object.keys(files).length}-${Math.random()}`);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(folder, "package", path)), { recursive: true });
      await writeFile(join(folder, "package", path), text);
    }
    return execFileSync("tar", ["-czf", "-", "-C", folder, "package"]);
  }

  function registry(gzipped: Buffer, integrity: string | undefined) {
    const calls = { tarball: 0 };
    const packument = {
      name: BUNDLE.package,
      "dist-tags": {},
      time: {},
      versions: { "4.18.2": { version: "4.18.2", dist: { integrity } } },
    } as unknown as Packument;
    return {
      calls,
      packument: async () => packument,
      tarball: async () => {
        calls.tarball++;
        return gzipped;
      },
    };
  }
  const sri = (bytes: Buffer) => `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
  const update = { to: "4.18.2" };

  it("is bin/yarn.js of a tarball that matches the registry's integrity", async () => {
    const good = await tarball({ "bin/yarn.js": "// 4.18.2\n", "package.json": "{}" });
    const bytes = await releaseFromRegistry(registry(good, sri(good)), update, SWAP);
    expect(bytes.toString()).toBe("// 4.18.2\n");
  });

  it("is refused for a tarball that does not match, no integrity, or no bin/yarn.js", async () => {
    const good = await tarball({ "bin/yarn.js": "// 4.18.2\n" });
    const other = await tarball({ "bin/yarn.js": "// something else\n" });
    await expect(releaseFromRegistry(registry(other, sri(good)), update, SWAP)).rejects.toThrow(
      /^@yarnpkg\/cli-dist@4\.18\.2: the tarball does not match the registry's integrity \(sha512-/,
    );
    await expect(releaseFromRegistry(registry(good, undefined), update, SWAP)).rejects.toThrow(
      "@yarnpkg/cli-dist@4.18.2: the registry states no sha-2 integrity for its tarball",
    );
    const sha1 = `sha1-${createHash("sha1").update(good).digest("base64")}`;
    await expect(releaseFromRegistry(registry(good, sha1), update, SWAP)).rejects.toThrow(
      "no sha-2 integrity",
    );
    const empty = await tarball({ "package.json": "{}" });
    await expect(releaseFromRegistry(registry(empty, sri(empty)), update, SWAP)).rejects.toThrow(
      "@yarnpkg/cli-dist@4.18.2: its tarball has no bin/yarn.js",
    );
  });

  it("is fetched once per job, and again after a failed fetch", async () => {
    const good = await tarball({ "bin/yarn.js": "// 4.18.2\n" });
    const source = registry(good, sri(good));
    const bytes = registryReleaseBytes(source);
    const fromUpdate = { ...update } as Parameters<typeof bytes>[0];
    await bytes(fromUpdate, SWAP);
    await bytes(fromUpdate, SWAP);
    expect(source.calls.tarball).toBe(1);

    let fail = true;
    const flaky = {
      ...source,
      tarball: async () => {
        source.calls.tarball++;
        if (fail) throw new Error("ECONNRESET");
        return good;
      },
    };
    const again = registryReleaseBytes(flaky);
    await expect(again(fromUpdate, SWAP)).rejects.toThrow("ECONNRESET");
    fail = false;
    expect((await again(fromUpdate, SWAP)).toString()).toBe("// 4.18.2\n");
  });
});
