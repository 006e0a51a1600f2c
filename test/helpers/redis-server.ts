import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "./free-port.js";
import { makeTempDir, type TempDir } from "./git-repos.js";

/**
 * A real redis-server (Debian's package; .ci/run installs it) on a free
 * loopback port, with no persistence, in a temporary folder.
 */
export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir: TempDir = makeTempDir("pw-redis-");
  const child: ChildProcess = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir.path,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((ready, fail) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not start:\n${output}`)),
      10_000,
    );
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        ready();
      }
    });
    // A port taken after all, say: the reason now rather than after the timeout.
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`redis-server exited (${code}) before it was ready:\n${output}`));
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      fail(
        new Error(
          `redis-server could not start (install the redis-server package): ${error.message}`,
        ),
      );
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      await exited;
      dir.remove();
    },
  };
}
