import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { machineMounts, sandboxMounts } from "../../src/sandbox/layout.js";
import { secretFilesInEnv } from "../../src/sandbox/secret-files.js";
import { makeTempDir } from "../helpers/temp-dir.js";

describe("key files the environment names", () => {
  it("lists each named file, relative ones from cwd, with its real path, and the usual ones under HOME", async () => {
    const dir = await makeTempDir("pw-keys-");
    await mkdir(join(dir, "keys"));
    await writeFile(join(dir, "keys", "app.pem"), "key\n");
    await symlink(join(dir, "keys", "app.pem"), join(dir, "link.pem"));
    const files = secretFilesInEnv(
      {
        PRIVATE_KEY_PATH: "link.pem",
        GOOGLE_APPLICATION_CREDENTIALS: "/etc/gcp/sa.json",
        AWS_CONFIG_FILE: "  ",
        KUBECONFIG: "/a/kube:/b/kube",
        pnpm_config_npmrc_auth_file: "/etc/pnpm/auth.ini",
        UNRELATED_PATH: "/etc/other",
      },
      { cwd: dir, home: "/home/srv" },
    );
    expect(files).toContain(join(dir, "link.pem"));
    expect(files).toContain(join(dir, "keys", "app.pem"));
    expect(files).toContain("/etc/gcp/sa.json");
    expect(files).toContain("/a/kube");
    expect(files).toContain("/b/kube");
    expect(files).toContain("/home/srv/.aws");
    expect(files).toContain("/home/srv/.config/gcloud");
    // pnpm 11 keeps login tokens in its own auth.ini, pnpm 12 in its config.yaml.
    expect(files).toContain("/etc/pnpm/auth.ini");
    expect(files).toContain("/home/srv/.config/pnpm");
    expect(files).not.toContain("/etc/other");
    expect(files.some((file) => file.trim() === "" || file === dir)).toBe(false);
  });
});

describe("covering hidden files inside what a sandbox shows", () => {
  it("masks a key at its real path under each shown folder, never through a symlink", async () => {
    const dir = await makeTempDir("pw-mask-");
    await mkdir(join(dir, "real", "etc"), { recursive: true });
    await writeFile(join(dir, "real", "etc", "app.pem"), "key\n");
    // The folder is shown under a symlinked name, and the key is named through another symlink.
    await symlink(join(dir, "real"), join(dir, "shown"));
    await symlink(join(dir, "real", "etc", "app.pem"), join(dir, "named.pem"));
    const mounts = sandboxMounts([{ kind: "ro", path: join(dir, "shown") }], {
      workspace: await makeTempDir("pw-ws-"),
      readOnly: [],
      hidden: [join(dir, "named.pem"), join(dir, "missing.pem")],
    });
    const masks = mounts.filter((m) => m.kind === "mask-file").map((m) => m.path);
    expect(masks).toEqual([join(dir, "shown", "etc", "app.pem")]);
  });

  it("masks the global npmrc of node's prefix and of every toolchain shown", async () => {
    const prefix = await makeTempDir("pw-node-");
    for (const sub of ["bin", "lib", "etc"]) await mkdir(join(prefix, sub));
    await writeFile(join(prefix, "bin", "node"), "");
    await writeFile(join(prefix, "etc", "npmrc"), "//r/:_authToken=x\n");
    await mkdir(join(prefix, "keys"));
    const mounts = machineMounts({
      path: join(prefix, "bin"),
      nodePath: join(prefix, "bin", "node"),
      hidden: [join(prefix, "keys")],
      home: "/nonexistent-home",
    });
    // The toolchain stays shown although a hidden folder is inside it; the npmrc is covered after it.
    const order = mounts.map((m) => `${m.kind} ${m.path}`);
    expect(order).toContain(`ro ${prefix}`);
    expect(order.indexOf(`mask-file ${join(prefix, "etc", "npmrc")}`)).toBeGreaterThan(
      order.indexOf(`ro ${prefix}`),
    );
  });
});
