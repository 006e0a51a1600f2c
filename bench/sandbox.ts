import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findShell, runShellProcess } from "../src/agent/shell-process.js";
import { buildShellEnv } from "../src/agent/tools/shell-env.js";
import { networkPolicy } from "../src/sandbox/network.js";
import { type Sandbox, unsandboxed } from "../src/sandbox/sandbox.js";
import { chooseSandbox } from "../src/sandbox/select.js";
import { timeMedian } from "./timing.js";

/**
 * What the sandbox adds to one `run_shell` call: the same trivial command
 * (`true`) through runShellProcess unsandboxed, in a bubblewrap sandbox with
 * no network, and in one limited to hosts (which starts a proxy bridge inside).
 * Target: under 50 ms added per call.
 */

const RUNS = 21;

export async function bench(): Promise<void> {
  const choice = await chooseSandbox({
    mode: "service",
    optOut: false,
    optOutName: "-",
    path: process.env.PATH ?? "",
    home: process.env.HOME ?? "/root",
    hidden: [],
    env: {},
    cwd: process.cwd(),
  });
  if (choice.launcher.kind !== "bubblewrap") {
    console.log(`\nsandbox benchmark skipped: ${choice.warning}`);
    return;
  }
  const workspace = await mkdtemp(join(tmpdir(), "pw-bench-sandbox-"));
  try {
    const env = buildShellEnv(process.env);
    const shell = await findShell(env.PATH);
    const call = (sandbox: Sandbox) => () =>
      runShellProcess(shell, "true", 10, {
        cwd: workspace,
        env,
        signal: new AbortController().signal,
        sandbox,
      });
    const open = (network: Parameters<typeof networkPolicy>[0]) =>
      choice.launcher.open({ workspace, readOnly: [], network: networkPolicy(network) });
    const hosts = open(["registry.npmjs.org"]);
    const rows: Array<[string, number]> = [
      [
        "unsandboxed",
        await timeMedian(
          RUNS,
          call(unsandboxed.open({ workspace, readOnly: [], network: { kind: "off" } })),
        ),
      ],
      ["bubblewrap, network off", await timeMedian(RUNS, call(open("off")))],
      ["bubblewrap, network on", await timeMedian(RUNS, call(open("on")))],
      ["bubblewrap, hosts (proxy bridge)", await timeMedian(RUNS, call(hosts))],
    ];
    await hosts.close();
    const base = rows[0]?.[1] ?? 0;
    console.log(`\nsandbox cost per run_shell call (\`true\`, median of ${RUNS})`);
    for (const [label, ms] of rows) {
      const added = label === "unsandboxed" ? "" : `  (+${(ms - base).toFixed(1)} ms)`;
      console.log(`${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms${added}`);
    }
    const off = (rows[1]?.[1] ?? 0) - base;
    console.log(`added by the sandbox (network off): ${off.toFixed(1)} ms (target < 50 ms)`);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
