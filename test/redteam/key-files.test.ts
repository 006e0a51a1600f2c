import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Model } from "../../src/agent/model/model.js";
import type { NetworkPolicy } from "../../src/sandbox/network.js";
import type { SandboxLauncher } from "../../src/sandbox/sandbox.js";
import type { ServiceSettings } from "../../src/service/env.js";
import { workerServices } from "../../src/service/worker-service.js";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";

/**
 * Key files the server's environment names by path (the App's
 * PRIVATE_KEY_PATH, cloud credentials) and global npm configs, in a folder
 * every sandbox shows read-only, as /etc is. Before they were hidden by
 * name, `cat /etc/patchwright/app.pem` read the App's key from run_shell and
 * from setup (which has the network). The "system" folder here is a
 * toolchain on PATH (shown read-only like /etc), so the test needs no root.
 */

const KEY = "-----BEGIN RSA PRIVATE KEY-----app-key-secret-0123456789";
const GCLOUD = "gcloud-credentials-secret-0123456789";
const AWS = "aws-credentials-secret-0123456789";
const NPM = "npm-registry-token-secret-0123456789";

let tmp: TempDir;
let sys: string;
let launcher: SandboxLauncher;

beforeAll(async () => {
  tmp = makeTempDir("pw-redteam-keys-");
  sys = join(tmp.path, "sys");
  for (const dir of ["bin", "lib", "etc/patchwright", "etc/aws"]) {
    mkdirSync(join(sys, dir), { recursive: true });
  }
  mkdirSync(join(tmp.path, "ws"));
  writeFileSync(join(sys, "etc/patchwright/app.pem"), `${KEY}\n`);
  writeFileSync(join(sys, "etc/gcloud.json"), `{"private_key":"${GCLOUD}"}\n`);
  writeFileSync(join(sys, "etc/aws/credentials"), `aws_secret_access_key=${AWS}\n`);
  // npm's global config for this prefix, as node's own prefix has one.
  writeFileSync(join(sys, "etc/npmrc"), `//registry.example/:_authToken=${NPM}\n`);
  writeFileSync(join(sys, "etc/hostname.txt"), "visible-host-file\n");
  // The App's key named through a symlink outside anything shown: its target must be hidden.
  symlinkSync(join(sys, "etc/patchwright/app.pem"), join(tmp.path, "app-key.pem"));

  const settings = {
    cacheDir: join(tmp.path, "cache"),
    unsandboxed: false,
    path: `${join(sys, "bin")}:${process.env.PATH}`,
    home: join(tmp.path, "home"),
  } as ServiceSettings;
  const deps = workerServices({
    settings,
    env: {
      PRIVATE_KEY_PATH: join(tmp.path, "app-key.pem"),
      GOOGLE_APPLICATION_CREDENTIALS: join(sys, "etc/gcloud.json"),
      AWS_SHARED_CREDENTIALS_FILE: join(sys, "etc/aws/credentials"),
    },
    queue: {} as never,
    github: {} as never,
    log: { info() {}, warn() {}, error() {} } as never,
    createModel: (() => {
      throw new Error("no model in this test");
    }) as (id: string) => Model,
  });
  launcher = await deps.sandbox();
});

afterAll(() => tmp.remove());

/** Runs a shell command in a sandbox of the workspace, as run_shell (network off) or setup (on) does. */
async function inSandbox(command: string, network: NetworkPolicy): Promise<string> {
  const workspace = join(tmp.path, "ws");
  const sandbox = launcher.open({ workspace, readOnly: [], network });
  try {
    const wrapped = await sandbox.wrap({
      argv: ["/bin/sh", "-c", command],
      cwd: workspace,
      env: { PATH: "/usr/bin:/bin" },
    });
    const run = spawnSync(wrapped.file, wrapped.args, { env: wrapped.env, encoding: "utf8" });
    return `${run.stdout}${run.stderr}`;
  } finally {
    await sandbox.close();
  }
}

describe.each<[string, NetworkPolicy]>([
  ["run_shell", { kind: "off" }],
  ["setup", { kind: "on" }],
])("red team: key files named by path stay out of the %s sandbox", (_name, network) => {
  it("shows the folder the keys sit in (so the checks below can fail)", async () => {
    const out = await inSandbox(`cat ${join(sys, "etc/hostname.txt")}; ls ${sys}/bin`, network);
    expect(out).toContain("visible-host-file");
    expect(launcher.kind).toBe("bubblewrap");
  });

  it("cannot read the App's key named by PRIVATE_KEY_PATH, through its symlink or at its target", async () => {
    const out = await inSandbox(
      `cat ${join(tmp.path, "app-key.pem")} ${join(sys, "etc/patchwright/app.pem")} 2>&1; true`,
      network,
    );
    expect(out).not.toContain("app-key-secret");
  });

  it("cannot read cloud credentials named by GOOGLE_APPLICATION_CREDENTIALS and AWS_SHARED_CREDENTIALS_FILE", async () => {
    const out = await inSandbox(
      `cat ${join(sys, "etc/gcloud.json")} ${join(sys, "etc/aws/credentials")} 2>&1; true`,
      network,
    );
    expect(out).not.toContain(GCLOUD);
    expect(out).not.toContain(AWS);
  });

  it("cannot read a global npmrc (registry tokens)", async () => {
    const npmrcs = `${join(sys, "etc/npmrc")} /etc/npmrc /usr/etc/npmrc /usr/local/etc/npmrc`;
    const out = await inSandbox(`cat ${npmrcs} 2>&1; true`, network);
    expect(out).not.toContain(NPM);
    expect(out).not.toMatch(/_authToken=\S/);
  });
});
