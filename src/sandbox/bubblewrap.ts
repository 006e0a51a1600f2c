import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHostProxy } from "./host-proxy.js";
import { type Mount, sandboxMounts } from "./layout.js";
import type { NetworkPolicy } from "./network.js";
import { PROXY_BRIDGE_PORT, PROXY_BRIDGE_SOURCE } from "./proxy-bridge.js";
import type { Sandbox, SandboxLauncher, SandboxProfile } from "./sandbox.js";

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
}

/** Where the sandbox's private HOME and the proxy socket sit inside. */
export const SANDBOX_HOME = "/tmp/home";
const PROXY_SOCKET = "/tmp/.patchwright-proxy.sock";

export function bubblewrapLauncher(options: BubblewrapOptions): SandboxLauncher {
  return {
    kind: "bubblewrap",
    open: (profile) => openSandbox(options, profile),
  };
}

function openSandbox(options: BubblewrapOptions, profile: SandboxProfile): Sandbox {
  const mounts = sandboxMounts(options.machine, { ...profile, hidden: options.hidden });
  let proxy: Promise<{ socket: string; close(): Promise<void> }> | undefined;
  const startProxy = (policy: Extract<NetworkPolicy, { kind: "hosts" }>) => {
    proxy ??= (async () => {
      const dir = await mkdtemp(join(tmpdir(), "patchwright-net-"));
      const socket = join(dir, "proxy.sock");
      const server = await startHostProxy(socket, policy.hosts, { anyPublic: policy.anyPublic });
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
      const env = sandboxEnv(request.env, network);
      const args = bwrapArgs(options, mounts, network);
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
    case "symlink":
      return ["--symlink", mount.target, mount.path];
    case "tmpfs":
      return ["--tmpfs", mount.path];
    case "dir":
      return ["--dir", mount.path];
    case "mask-file":
      return ["--ro-bind", "/dev/null", mount.path];
  }
}

/** The command's own environment, with a private HOME and /tmp, and the proxy when there is one. */
function sandboxEnv(env: Record<string, string>, network: NetworkPolicy): Record<string, string> {
  const result: Record<string, string> = { ...env, HOME: SANDBOX_HOME, TMPDIR: "/tmp" };
  for (const name of ["TMP", "TEMP"]) if (name in result) result[name] = "/tmp";
  const proxyVars = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
    "YARN_HTTP_PROXY",
    "YARN_HTTPS_PROXY",
  ];
  if (network.kind !== "on") for (const name of proxyVars) delete result[name];
  if (network.kind === "hosts") {
    const url = `http://127.0.0.1:${PROXY_BRIDGE_PORT}`;
    Object.assign(result, {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      // Yarn 2+ reads its own settings only, never the variables above.
      YARN_HTTP_PROXY: url,
      YARN_HTTPS_PROXY: url,
    });
  }
  return result;
}
