import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * The Node 24 that action.yml names (`using: node24`), from the npm
 * registry's Node builds (cached by npx after the first run): the Action's
 * end-to-end tests and its benchmark run the bundle on it.
 */

export const NODE_24 = "24.9.0";

/** The Node 24 executable, or "" with the reason in `problem`. */
export async function findNode24(): Promise<{ path: string; problem: string }> {
  try {
    // The executable itself, so that what is timed or run is Node, not npx starting it.
    const { stdout } = await promisify(execFile)(
      "npx",
      ["-y", `node@${NODE_24}`, "-p", "process.execPath"],
      { timeout: 180_000 },
    );
    return { path: stdout.trim(), problem: "" };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { path: "", problem: `npx -y node@${NODE_24} failed: ${reason}` };
  }
}
