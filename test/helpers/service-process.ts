import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { join, resolve } from "node:path";
import { freePort } from "./free-port.js";
import { compiled } from "./source-build.js";

/**
 * The App (`npm start`) and `patchwright worker` as real processes, on the
 * sources compiled for this run (source-build.ts), for tests that kill them.
 */

const ROOT = resolve(import.meta.dirname, "../..");

/** Polls until `check` holds; a process under test has no clock to inject. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once it has exited. */
  exited: Promise<number | string>;
}

/** Ends a test's process for good and waits until it has exited, so none outlives its test. */
export async function killProcess(p: ServiceProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill("SIGKILL");
  await p.exited;
}

function start(args: string[], env: Record<string, string>, cwd: string): ServiceProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | string>((done) =>
    child.on("exit", (code, signal) => done(code ?? signal ?? "unknown")),
  );
  return { child, output: () => output, exited };
}

/**
 * The App as `npm start` runs it (its start-up checks, then Probot), or as
 * `probot run` runs it without them (`viaProbot`), on the sources.
 */
export function spawnApp(
  env: Record<string, string>,
  cwd: string,
  options: { viaProbot?: boolean } = {},
): ServiceProcess {
  const entry = options.viaProbot
    ? [join(ROOT, "node_modules/probot/bin/probot.js"), "run", compiled("src/app/index.ts")]
    : [compiled("src/app/start.ts")];
  return start(entry, env, cwd);
}

/** `patchwright` (the CLI: `worker`, `run`...) on the sources. */
export function spawnCli(args: string[], env: Record<string, string>, cwd: string): ServiceProcess {
  return start([compiled("src/cli.ts"), ...args], env, cwd);
}

/** `npm start` on the sources; resolves once /ping answers. */
export async function startAppProcess(
  env: Record<string, string>,
  cwd: string,
): Promise<ServiceProcess & { port: number }> {
  const port = await freePort();
  const app = spawnApp({ ...env, PORT: String(port), HOST: "127.0.0.1" }, cwd);
  let ready = false;
  await eventually(async () => {
    ready = await fetch(`http://127.0.0.1:${port}/ping`).then(
      async (r) => (await r.text()) === "PONG",
      () => false,
    );
    return ready || app.child.exitCode !== null;
  }, "the App to answer /ping");
  if (!ready) throw new Error(`the App exited:\n${app.output()}`);
  return { ...app, port };
}

/** `patchwright worker` on the sources; resolves once it says it started. */
export async function startWorkerProcess(
  env: Record<string, string>,
  cwd: string,
): Promise<ServiceProcess> {
  const worker = spawnCli(["worker"], env, cwd);
  await eventually(
    () => worker.output().includes("worker started") || worker.child.exitCode !== null,
    "the worker to start",
  );
  if (worker.child.exitCode !== null) throw new Error(`the worker exited:\n${worker.output()}`);
  return worker;
}

/** Posts a signed webhook to an App process; returns the HTTP status. */
export async function postWebhook(
  port: number,
  secret: string,
  event: string,
  delivery: string,
  payload: unknown,
): Promise<number> {
  const body = JSON.stringify(payload);
  const response = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": delivery,
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
    body,
  });
  await response.text();
  return response.status;
}
