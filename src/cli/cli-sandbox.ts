import { homedir } from "node:os";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { chooseSandbox } from "../sandbox/select.js";
import type { CliIo } from "./cli-io.js";

/** The sandbox for this run, chosen once: bubblewrap, or unsandboxed with one warning line. */
export async function cliSandbox(
  io: Pick<CliIo, "env" | "stderr" | "cwd">,
  cacheDir: string,
): Promise<SandboxLauncher> {
  const choice = await chooseSandbox({
    mode: "cli",
    optOut: false,
    optOutName: "",
    path: io.env.PATH ?? "",
    home: io.env.HOME || homedir(),
    // Key files the environment names (a Vertex service account, AWS
    // credentials) stay out of reach even where they sit in a visible folder.
    env: io.env,
    cwd: io.cwd,
    hidden: [cacheDir],
  });
  if (choice.warning) io.stderr.write(`${choice.warning}\n`);
  for (const note of choice.notes) io.stderr.write(`patchwright: note: ${note}\n`);
  return choice.launcher;
}
