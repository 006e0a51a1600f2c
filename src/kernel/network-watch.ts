import { open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { NetworkPolicy } from "../sandbox/network.js";
import {
  describeNetworkTrouble,
  type NetworkTrouble,
  watchNetworkTrouble,
} from "../sandbox/network-trouble.js";
import { makeScratchDir } from "../scratch.js";

/**
 * Watches one setup, install or verify command for network failures while
 * it runs: in its output, and in npm's debug log, because npm retries a
 * failing request for minutes without printing a word (its log says
 * "attempt 2 failed with SELF_SIGNED_CERT_IN_CHAIN" as it happens). The
 * log goes to a scratch folder of ours, which the command's sandbox shows
 * writable, so nothing is written into the workspace.
 */

export interface CommandNetworkWatch {
  /** Added to the command's environment. */
  env: Record<string, string>;
  /** Host folders the command may write to (the log folder). */
  writable: string[];
  /** The command's output, as it arrives. */
  onOutput(text: string): void;
  /** Reads what is left, removes the folder; the first failure seen, described (once; later calls say the same). */
  stop(): Promise<string | undefined>;
}

export interface WatchOptions {
  network: NetworkPolicy;
  /** The config key that sets this command's network (`setup_network` or `network`). */
  setting: string;
  /** Each kind of failure once, described, as soon as it is seen. */
  onTrouble?: ((description: string) => void) | undefined;
  pollMs?: number;
}

const POLL_MS = 1_000;

export async function watchCommandNetwork(options: WatchOptions): Promise<CommandNetworkWatch> {
  const describe = (trouble: NetworkTrouble) =>
    describeNetworkTrouble(trouble, { network: options.network, setting: options.setting });
  const watcher = watchNetworkTrouble((trouble) => options.onTrouble?.(describe(trouble)));
  const logDir = await makeScratchDir("cmd-log");
  const offsets = new Map<string, number>();
  let reading = Promise.resolve();
  const poll = () => {
    reading = reading.then(() => readNew(logDir, offsets, watcher.push));
    return reading;
  };
  const timer = setInterval(poll, options.pollMs ?? POLL_MS);
  let stopped: Promise<string | undefined> | undefined;
  timer.unref();
  return {
    // npm's update check would fail in a sandbox without network, and its
    // log line would read as the command's own network failure.
    env: { npm_config_logs_dir: logDir, npm_config_update_notifier: "false" },
    writable: [logDir],
    onOutput: (text) => watcher.push(text),
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await poll();
        // A last line without its newline is still a line once the command is over.
        watcher.push("\n");
        for (const name of offsets.keys()) watcher.push("\n", name);
        await rm(logDir, { recursive: true, force: true });
        const first = watcher.first();
        return first ? describe(first) : undefined;
      })();
      return stopped;
    },
  };
}

/** Appends what each log file gained since the last read. */
async function readNew(
  dir: string,
  offsets: Map<string, number>,
  push: (text: string, source: string) => void,
): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    const handle = await open(join(dir, name), "r").catch(() => undefined);
    if (!handle) continue;
    try {
      const from = offsets.get(name) ?? 0;
      const { size } = await handle.stat();
      if (size <= from) continue;
      const buffer = Buffer.alloc(Math.min(size - from, 1024 * 1024));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
      offsets.set(name, from + bytesRead);
      push(buffer.subarray(0, bytesRead).toString("utf8"), name);
    } finally {
      await handle.close();
    }
  }
}
