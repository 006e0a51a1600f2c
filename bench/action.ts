import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  type ActionWorld,
  API_KEY,
  buildBundle,
  eventPayload,
  type Payload,
  prepareRun,
  runnerEnv,
  startWorld,
  TOKEN,
} from "../test/action/harness.js";
import { reply } from "../test/helpers/model-script.js";
import { median } from "./timing.js";

/**
 * How fast the bundled Action gets to work: the time from spawning
 * `node dist/index.js` (as the runner does) to its first model request, on
 * a cold runner (fresh RUNNER_TEMP, so the repository is cloned over HTTP
 * from a loopback git server). Printed next to `node -e 0` and to loading
 * the bundle alone. Target: first model request under 1 s.
 *
 * The example payloads give a small repository.size, so the repository is
 * fetched whole; the "size unknown" row shows the partial fetch (the path
 * of a large repository), whose checkout fetches file contents separately.
 */

const RUNS = 5;

/** Milliseconds from spawn to exit. */
function timeProcess(args: string[], env: Record<string, string>): Promise<number> {
  const start = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env, stdio: "ignore" });
    child.on("error", fail);
    child.on("close", () => done(performance.now() - start));
  });
}

/** Milliseconds from spawn to the first model request; the run then finishes with no changes. */
async function timeFirstRequest(
  entry: string,
  world: ActionWorld,
  marks: { firstRequestAt?: number | undefined },
  event: string,
  payload: Payload,
  inputs: Record<string, string>,
): Promise<number> {
  world.model.push(reply("Nothing to change."));
  marks.firstRequestAt = undefined;
  const runDir = prepareRun(world, payload);
  const start = performance.now();
  const child = spawn(process.execPath, [entry], {
    cwd: runDir,
    env: runnerEnv(world, runDir, event, inputs),
    stdio: "ignore",
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  if (code !== 0 || marks.firstRequestAt === undefined) {
    throw new Error(`the ${event} run failed (exit ${code}); run the action tests to see why`);
  }
  return marks.firstRequestAt - start;
}

export async function bench(): Promise<void> {
  const bundle = await buildBundle();
  const marks: { firstRequestAt?: number | undefined } = {};
  const world = await startWorld({
    onModelRequest: () => {
      marks.firstRequestAt ??= performance.now();
    },
  });
  try {
    const bare = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const nodeOnly: number[] = [];
    const loadOnly: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      nodeOnly.push(await timeProcess(["-e", "0"], bare));
      // Without GITHUB_* the bundle loads, finds no event and exits: the cost of loading it.
      loadOnly.push(await timeProcess([bundle.entry], bare));
    }

    const inputs = { anthropic_api_key: API_KEY, github_token: TOKEN };
    const dispatch = eventPayload(world, "workflow_dispatch", undefined, "octocat");
    const comment = eventPayload(
      world,
      "issue_comment",
      "created",
      "octocat",
      (p: Payload) => !p.issue.pull_request,
    );
    Object.assign(comment.issue, { number: 7, title: "Tidy up", state: "open", locked: false });
    Object.assign(comment.comment, { id: 555, body: "@agent tidy up" });
    const unknownSize = structuredClone(dispatch);
    delete (unknownSize.repository as { size?: number }).size;
    const dispatchRuns: number[] = [];
    const commentRuns: number[] = [];
    const partialRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      dispatchRuns.push(
        await timeFirstRequest(bundle.entry, world, marks, "workflow_dispatch", dispatch, {
          ...inputs,
          prompt: "Tidy up",
        }),
      );
      commentRuns.push(
        await timeFirstRequest(bundle.entry, world, marks, "issue_comment", comment, inputs),
      );
      partialRuns.push(
        await timeFirstRequest(bundle.entry, world, marks, "workflow_dispatch", unknownSize, {
          ...inputs,
          prompt: "Tidy up",
        }),
      );
    }

    const rows: Array<[string, number]> = [
      ["node -e 0", median(nodeOnly)],
      ["node dist/index.js, load and exit", median(loadOnly)],
      ["workflow_dispatch: start -> first model request", median(dispatchRuns)],
      ["issue_comment: start -> first model request", median(commentRuns)],
      ["workflow_dispatch, size unknown (partial fetch)", median(partialRuns)],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    console.log(`\nbundled Action startup (median of ${RUNS}, cold runner, git over HTTP)`);
    for (const [label, ms] of rows)
      console.log(`${label.padEnd(width)}  ${ms.toFixed(0).padStart(6)} ms`);
    const slowest = Math.max(median(dispatchRuns), median(commentRuns));
    console.log(`first model request: ${slowest.toFixed(0)} ms (target < 1000 ms)`);
  } finally {
    await world.close();
    bundle.dir.remove();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bench();
}
