import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * A loopback port for a process a test starts and that binds it a moment
 * later (the App, redis-server). A port the kernel hands out (a listen on
 * port 0, closed again) is free when asked, not a second later when the
 * process binds it: every server the other tests open on port 0, and every
 * outgoing connection, draws from the same ephemeral range, and one of them
 * took a restarted App's port in a clean-clone run (EADDRINUSE in
 * e2e/app-durability). So the port comes from below that range, where the
 * kernel hands out none: from a block of its own for each vitest worker,
 * one port after another, each checked free (a service of the machine may
 * listen there). Where the range starts too low for the blocks, port 0 as before.
 */

const BLOCK = 1000;
/** Blocks below the ephemeral range: more than vitest's workers (cores + 2) on any machine we run. */
const BLOCKS = 16;
const LOWEST = 1024;

/** The first port of the kernel's ephemeral range (Linux; 32768 elsewhere or unreadable). */
export function ephemeralStart(
  read: () => string = () => readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8"),
): number {
  try {
    const low = Number(read().trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** This process's block: vitest numbers its workers from 1; other callers (a bench) go by pid. */
function blockIndex(env: Record<string, string | undefined> = process.env): number {
  const pool = Number(env.VITEST_POOL_ID);
  return Number.isInteger(pool) && pool > 0 ? (pool - 1) % BLOCKS : process.pid % BLOCKS;
}

let handedOut = 0;

export async function freePort(): Promise<number> {
  const first = ephemeralStart() - BLOCK * (blockIndex() + 1);
  if (first < LOWEST) return listenOnce(0);
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = first + (handedOut++ % BLOCK);
    if (
      await listenOnce(port).then(
        () => true,
        () => false,
      )
    )
      return port;
  }
  throw new Error(`no free port in ${first}-${first + BLOCK - 1}`);
}

/** Listens on 127.0.0.1:`port` and closes again; the port it got. */
function listenOnce(port: number): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? done(address.port) : fail(new Error("no port")),
      );
    });
  });
}
