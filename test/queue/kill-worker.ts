import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { compiled } from "../helpers/source-build.js";

/**
 * A worker in its own process takes the job and is killed with SIGKILL
 * mid-run, or ("report") once it has begun to report the job out of attempts.
 */
export async function killWorkerMidJob(
  url: string,
  name: string,
  maxAttempts: number,
  during: "run" | "report" = "run",
): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      compiled(resolve(import.meta.dirname, "stuck-worker.ts")),
      url,
      name,
      String(maxAttempts),
      during,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const said = during === "run" ? "picked" : "reporting";
  await new Promise<void>((reached) =>
    child.stdout?.on("data", (chunk: Buffer) => String(chunk).includes(said) && reached()),
  );
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGKILL");
  await exited;
}
