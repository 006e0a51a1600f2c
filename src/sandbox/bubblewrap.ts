import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { makeScratchDir } from "../scratch.js";
import { startHostProxy } from "./host-proxy.js";
import { type Mount, SANDBOX_HOME, sandboxMounts } from "./layout.js";
import type { NetworkPolicy } from "./network.js";
import { PROXY_BRIDGE_PORT, PROXY_BRIDGE_SOURCE } from "./proxy-bridge.js";
import type { Sandbox, SandboxLauncher, SandboxProfile } from "./sandbox.js";
import type { HostTrust } from "./trust/host-trust.js";
import { PROXY_VARIABLES } from "./trust/proxy-settings.js";
import { homeFileTexts, type SandboxTrust, sandboxTrust } from "./trust/sandbox-trust.js";

/** pnpm's store under a job HOME (sandboxEnv, writeHomeFiles). */
const PNPM_STORE = `${SANDBOX_HOME}/.local/share/pnpm/store`;

/**
 * Sandboxes made with bubblewrap: every namespace unshared (its own PID
 * namespace and /proc, so no process outside is visible and everything
 * started inside dies with the command; no network unless the profile gives
 * it), an empty root with only what layout.ts puts back, no capabilities
 * (as root, bubblewrap would otherwise leave them, and a read-only bind
 * could be remounted writable), and no new user namespaces inside.
 */

export interface BubblewrapOptions {
  /** The bwrap executable. */
  bwrap: string;
  machine: Mount[];
  hidden: string[];
  /** Node inside the sandbox, for the network bridge. */
  nodePath: string;
  /** bubblewrap 0.8 and later. */
  disableUserns: boolean;
  /** The host's CA and proxy settings, given to every sandbox without credentials. */
  trust: HostTrust;
}

/** Where the proxy socket sits inside. */
const PROXY_SOCKET = "/tmp/.patchwright-proxy.sock";
const BRIDGE_URL = `http://127.0.0.1:${PROXY_BRIDGE_PORT}`;

export function bubblewrapLauncher(options: BubblewrapOptions): SandboxLauncher {
  return {
    kind: "bubblewrap",
    open: (profile) => openSandbox(options, profile),
  };
}

function openSandbox(options: BubblewrapOptions, profile: SandboxProfile): Sandbox {
  const mounts = sandboxMounts(options.machine, { ...profile, hidden: options.hidden });
  const trust = sandboxTrust(options.trust, profile.network, BRIDGE_URL);
  let homeFiles: Promise<{ binds: string[]; close(): Promise<void> }> | undefined;
  let proxy: Promise<{ socket: string; close(): Promise<void> }> | undefined;
  const startProxy = (policy: Extract<NetworkPolicy, { kind: "hosts" }>) => {
    proxy ??= (async () => {
      const dir = await makeScratchDir("net");
      const socket = join(dir, "proxy.sock");
      const server = await startHostProxy(socket, policy.hosts, {
        anyPublic: policy.anyPublic,
        upstream: options.trust.proxy,
      });
      return {
        socket,
        close: async () => {
          await server.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    })();
    return proxy;
  };

  return {
    kind: "bubblewrap",
    network: profile.network,
    async wrap(request) {
      const network = profile.network;
      const env = sandboxEnv(request.env, network, trust, profile.home !== undefined);
      const args = bwrapArgs(options, mounts, network);
      homeFiles ??= writeHomeFiles(trust, profile.home !== undefined);
      args.push(...(await homeFiles).binds);
      for (const dir of request.writable ?? []) args.push("--bind", dir, dir);
      let argv = request.argv;
      if (network.kind === "hosts") {
        const { socket } = await startProxy(network);
        args.push("--bind", socket, PROXY_SOCKET);
        argv = [
          options.nodePath,
          "-e",
          PROXY_BRIDGE_SOURCE,
          String(PROXY_BRIDGE_PORT),
          PROXY_SOCKET,
          ...argv,
        ];
      }
      args.push("--chdir", request.cwd, "--", ...argv);
      return { file: options.bwrap, args, env };
    },
    async close() {
      if (proxy) await (await proxy).close();
      if (homeFiles) await (await homeFiles).close();
    },
  };
}

export function bwrapArgs(
  options: Pick<BubblewrapOptions, "disableUserns">,
  mounts: readonly Mount[],
  network: NetworkPolicy,
): string[] {
  // --unshare-user too: --unshare-all leaves it out when run as root, and
  // --disable-userns needs it.
  const args = ["--unshare-all", "--unshare-user"];
  if (network.kind === "on") args.push("--share-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  if (options.disableUserns) args.push("--disable-userns");
  args.push("--proc", "/proc", "--dev", "/dev");
  for (const mount of mounts) args.push(...mountArgs(mount));
  return args;
}

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case "ro":
      return ["--ro-bind", mount.path, mount.path];
    case "rw":
      return ["--bind", mount.path, mount.path];
    case "bind":
      return ["--bind", mount.source, mount.path];
    case "symlink":
      return ["--symlink", mount.target, mount.path];
    case "tmpfs":
      return ["--tmpfs", mount.path];
    case "dir":
      return ["--dir", mount.path];
    case "mask-file":
      // A device bind, so the file reads as empty: a plain bind of /dev/null
      // is mounted nodev and answers EACCES, which some tools (yarn 1 on
      // the masked global npmrc) treat as fatal.
      return ["--dev-bind", "/dev/null", mount.path];
  }
}

/**
 * The user config files the sandbox's HOME shows (npm's and yarn's trust
 * and network settings; under a job HOME, pnpm 10's global rc with its
 * store), written once per sandbox and bound read-only.
 */
async function writeHomeFiles(
  trust: SandboxTrust,
  jobHome: boolean,
): Promise<{ binds: string[]; close(): Promise<void> }> {
  const files: Record<string, string> = {
    ...(await homeFileTexts(trust)),
    ...(jobHome ? { ".config/pnpm/rc": `store-dir=${PNPM_STORE}\n` } : {}),
  };
  const names = Object.keys(files);
  if (names.length === 0) return { binds: [], close: async () => {} };
  const dir = await makeScratchDir("home");
  const binds: string[] = [];
  for (const name of names) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), files[name] ?? "");
    binds.push("--ro-bind", join(dir, name), join(SANDBOX_HOME, name));
  }
  return { binds, close: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The command's own environment, with a private HOME and /tmp, and the
 * host's CA and proxy settings as this sandbox's network has them (no
 * proxy without a network, the allow-list proxy behind one).
 */
function sandboxEnv(
  env: Record<string, string>,
  network: NetworkPolicy,
  trust: SandboxTrust,
  jobHome: boolean,
): Record<string, string> {
  const result: Record<string, string> = { ...env };
  // pnpm keeps its store where it can hard-link into the project, and
  // nothing links across the sandbox's bind mounts: it made a store in the
  // workspace (ufo: 139 MB of untracked `.pnpm-store/` the agent saw in
  // `git status` and the job hashed). With a job HOME it goes there; a
  // store the command's environment names (the dependency job's) stays.
  // pnpm 11 and later read `pnpm_config_store_dir`; pnpm 10 and earlier
  // read their global rc (writeHomeFiles), not `npm_config_store_dir`, which
  // npm 11 warned about in every command ("Unknown env config store-dir").
  if (jobHome) result.pnpm_config_store_dir ??= result.npm_config_store_dir ?? PNPM_STORE;
  if (network.kind !== "on") {
    for (const name of [...PROXY_VARIABLES, "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY"]) {
      delete result[name];
    }
  }
  // pnpm 11 installs before `pnpm run` when node_modules is older than
  // package.json (its verifyDepsBeforeRun default): with no network that
  // retried for over a minute, left node_modules half changed, and never ran
  // the script, after an agent's edit to package.json. It warns instead.
  if (network.kind === "off") {
    result.pnpm_config_verify_deps_before_run ??= "warn";
    // Nothing can answer, so a retry only waits: npm's two took 70 s to fail
    // what fails in half a second without them.
    for (const name of ["npm_config_fetch_retries", "pnpm_config_fetch_retries", "YARN_HTTP_RETRY"])
      result[name] ??= "0";
  }
  Object.assign(result, trust.env, { HOME: SANDBOX_HOME, TMPDIR: "/tmp" });
  for (const name of ["TMP", "TEMP"]) if (name in result) result[name] = "/tmp";
  return result;
}
