import { spawnSync } from "node:child_process";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { SandboxLauncher } from "../../src/sandbox/sandbox.js";
import { chooseSandbox } from "../../src/sandbox/select.js";
import { NO_HOST_TRUST } from "../../src/sandbox/trust/host-trust.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/**
 * Tools a runner or a developer puts on PATH from a home folder, started
 * inside the real sandbox. pnpm/action-setup installs pnpm with pnpm into
 * `~/setup-pnpm` and puts `node_modules/.bin` on the PATH: its `pnpm` is a
 * script that runs `../.pnpm/pnpm@…/node_modules/pnpm/bin/pnpm.cjs`, which
 * the sandbox did not show ("Cannot find module", every setup of a pnpm
 * project on such a runner). npm's documented user prefix
 * (`~/.npm-global`) links its bin folder into `lib/node_modules`.
 */

const NPM_TOKEN = "npm-user-prefix-token-0123456789";

let home: string;
let launcher: SandboxLauncher;
let path: string;

beforeAll(async () => {
  home = await makeTempDir("pw-path-tools-");
  // pnpm's own command shim, as `pnpm install pnpm` in ~/setup-pnpm writes it.
  const pnpmHome = join(home, "setup-pnpm/node_modules");
  const pkg = join(pnpmHome, ".pnpm/ptool@1.0.0/node_modules/ptool/bin");
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, "ptool.cjs"), 'console.log("ptool " + process.argv[2]);\n');
  await mkdir(join(pnpmHome, ".bin"));
  await writeFile(
    join(pnpmHome, ".bin/ptool"),
    [
      "#!/bin/sh",
      'basedir=$(dirname "$(echo "$0" | sed -e \'s,\\\\,/,g\')")',
      'exec node "$basedir/../.pnpm/ptool@1.0.0/node_modules/ptool/bin/ptool.cjs" "$@"',
      "",
    ].join("\n"),
  );
  await chmod(join(pnpmHome, ".bin/ptool"), 0o755);
  // npm's user prefix: bin links into lib/node_modules, config in etc.
  const prefix = join(home, ".npm-global");
  await mkdir(join(prefix, "lib/node_modules/gtool"), { recursive: true });
  await mkdir(join(prefix, "bin"));
  await mkdir(join(prefix, "etc"));
  await writeFile(
    join(prefix, "lib/node_modules/gtool/cli.js"),
    '#!/usr/bin/env node\nconsole.log("gtool " + process.argv[2]);\n',
  );
  await chmod(join(prefix, "lib/node_modules/gtool/cli.js"), 0o755);
  await symlink("../lib/node_modules/gtool/cli.js", join(prefix, "bin/gtool"));
  await writeFile(join(prefix, "etc/npmrc"), `//registry.example/:_authToken=${NPM_TOKEN}\n`);
  await writeFile(join(home, ".npmrc"), `//registry.example/:_authToken=${NPM_TOKEN}\n`);

  // oven-sh/setup-bun's binary, in a folder right under the home folder.
  await mkdir(join(home, ".bun/bin"), { recursive: true });
  await writeFile(join(home, ".bun/bin/btool"), '#!/bin/sh\necho "btool $1"\n');
  await chmod(join(home, ".bun/bin/btool"), 0o755);

  path = [
    join(pnpmHome, ".bin"),
    join(prefix, "bin"),
    join(home, ".bun/bin"),
    process.env.PATH,
  ].join(":");
  const choice = await chooseSandbox({
    mode: "service",
    optOut: false,
    optOutName: "PATCHWRIGHT_UNSANDBOXED=1",
    path,
    home,
    hidden: [],
    env: { PATH: path },
    cwd: "/",
    hostTrust: NO_HOST_TRUST,
  });
  launcher = choice.launcher;
});

async function inSandbox(command: string): Promise<{ out: string; status: number | null }> {
  const workspace = await makeTempDir("pw-path-tools-ws-");
  const sandbox = launcher.open({ workspace, readOnly: [], network: { kind: "off" } });
  try {
    const wrapped = await sandbox.wrap({
      argv: ["/bin/sh", "-c", command],
      cwd: workspace,
      env: { PATH: path },
    });
    const run = spawnSync(wrapped.file, wrapped.args, { env: wrapped.env, encoding: "utf8" });
    return { out: `${run.stdout}${run.stderr}`, status: run.status };
  } finally {
    await sandbox.close();
  }
}

describe("tools on PATH from a home folder, in the sandbox", () => {
  it("runs pnpm/action-setup's kind of command shim, an npm user prefix's linked command and setup-bun's binary", async () => {
    expect(launcher.kind).toBe("bubblewrap");
    const run = await inSandbox("ptool one && gtool two && btool three");
    expect(run.out).toContain("ptool one");
    expect(run.out).toContain("gtool two");
    expect(run.out).toContain("btool three");
    expect(run.status).toBe(0);
  });

  it("still shows neither the prefix's npm config nor the home folder's", async () => {
    const run = await inSandbox(
      `cat ${join(home, ".npm-global/etc/npmrc")} ${join(home, ".npmrc")} 2>&1; ls ${home} 2>&1; true`,
    );
    expect(run.out).not.toContain(NPM_TOKEN);
    expect(run.out).not.toContain(".npmrc");
    expect(run.out).toMatch(/No such file or directory/);
  });
});
