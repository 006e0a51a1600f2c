import { homedir } from "node:os";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { chooseSandbox } from "../sandbox/select.js";
import type { CliIo } from "./cli-io.js";

/** The sandbox for this run, chosen once: bubblewrap, or unsandboxed with one warning line. */
export async function cliSandbox(
  io: Pick<CliIo, "env" | "stderr">,
  cacheDir: string,
): Promise<SandboxLauncher> {
  const choice = await chooseSandbox({
    mode: "cli",
    optOut: false,
    optOutName: "",
    path: io.env.PATH ?? "",
    home: io.env.HOME || homedir(),
    hidden: [cacheDir],
  });
  if (choice.warning) io.stderr.write(`${choice.warning}\n`);
  return choice.launcher;
}
