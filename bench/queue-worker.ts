import { throttling } from "@octokit/plugin-throttling";
import type { Model } from "../src/agent/model/model.js";
import { createScriptedModel } from "../src/agent/model/scripted.js";
import { errorMessage } from "../src/error-message.js";
import { createGitHubAppClients } from "../src/github/client.js";
import type { JobHandler, JobResult, JobWorker } from "../src/queue/types.js";
import { unsandboxed } from "../src/sandbox/sandbox.js";
import { parseServiceEnv } from "../src/service/env.js";
import { createJobHandler } from "../src/service/job-handler.js";
import type { JobInputs } from "../src/service/job-kinds/inputs.js";
import { openJobQueue } from "../src/service/open-queue.js";
import { workerServices } from "../src/service/worker-service.js";
import { fixAddSteps } from "../test/helpers/demo-repo.js";
import { createGatedModel, type GatedModel } from "../test/helpers/gated-model.js";
import { reply } from "../test/helpers/model-script.js";
import { mountFakeGitHub } from "./queue-world.js";

/**
 * One `patchwright worker` process for the queue benchmark (forked by
 * queue.ts, talking over IPC): the real worker (open-queue.ts on REDIS_URL,
 * createJobHandler with workerServices, as worker-service.ts builds it) against
 * the fake GitHub in nock, the bare repository over file:// and a scripted
 * model that fixes add() in three turns, each after MODEL_TURN_MS (the
 * model's latency). Repository commands run unsandboxed.
 *
 * With HOLD=1 every job's model stops before its third turn until the
 * parent says "release": jobs caught mid-run, for the memory numbers.
 */

export type ToWorker = { type: "go" } | { type: "release" } | { type: "stop" } | { type: "gc" };
export type FromWorker =
  | { type: "ready" }
  | { type: "held" }
  | { type: "finished"; ms: number; result: JobResult }
  | { type: "memory"; rss: number; heapUsed: number; external: number }
  | {
      type: "stopped";
      writes: number;
      /** Writes GitHub spaces further apart (they notify people: comments, pull requests). */
      notifying: number;
      reads: number;
      problems: string[];
    };

const send = (message: FromWorker) => process.send?.(message);
const settings = parseServiceEnv(process.env);
const turnMs = Number(process.env.MODEL_TURN_MS ?? "0");
const hold = process.env.HOLD === "1";
/** TRIVIAL=1: every job's model answers at once, with no change (a question). */
const trivial = process.env.TRIVIAL === "1";
/** GitHub's write spacing (1 s per installation), scaled: 1 ms unless SECOND_MS says. */
const secondMs = Number(process.env.SECOND_MS ?? "1");

const problems: string[] = [];
const note = (level: string) => (fields: object, message: string) => {
  const err = "err" in fields ? `: ${errorMessage(fields.err)}` : "";
  problems.push(`${level} ${message}${err}`);
};
const log = { info: () => {}, warn: note("warn"), error: note("error") };

/** The scripted model, each turn after `turnMs` (aborted with the job). */
function slowModel(inner: Model): Model {
  return {
    id: inner.id,
    contextWindow: inner.contextWindow,
    async complete(request, onEvent) {
      await new Promise<void>((done, fail) => {
        const timer = setTimeout(done, turnMs);
        request.signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            fail(request.signal?.reason);
          },
          { once: true },
        );
      });
      return inner.complete(request, onEvent);
    },
  };
}

const gated: GatedModel[] = [];
const createModel = (): Model => {
  if (trivial) return slowModel(createScriptedModel([reply("add() subtracts: it returns a - b.")]));
  if (!hold) return slowModel(createScriptedModel(fixAddSteps()));
  const model = createGatedModel(fixAddSteps(), 3);
  gated.push(model);
  void model.held.then(() => send({ type: "held" }));
  return slowModel(model);
};

const queue = await openJobQueue(settings, {
  onError: (error) => problems.push(`queue: ${errorMessage(error)}`),
});
const github = mountFakeGitHub();
const clients = createGitHubAppClients({
  appId: settings.appId ?? "1",
  privateKey: settings.privateKey ?? "",
  secondMs,
  log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
});
const services = workerServices({
  settings,
  env: process.env,
  queue,
  github: clients,
  log,
  createModel,
  sandbox: unsandboxed,
});
const real = createJobHandler(services);
const handler: JobHandler<JobInputs> = {
  async run(job) {
    const start = performance.now();
    const result = await real.run(job);
    send({ type: "finished", ms: performance.now() - start, result });
    return result;
  },
  giveUp: (record, reason) => real.giveUp(record, reason),
};

let worker: JobWorker | undefined;
process.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "go":
      worker = queue.startWorker(handler, { concurrency: settings.concurrency });
      return;
    case "release":
      for (const model of gated.splice(0)) model.open();
      return;
    case "gc": {
      // Twice: the first pass may only finalize what the second frees.
      globalThis.gc?.();
      globalThis.gc?.();
      const { rss, heapUsed, external } = process.memoryUsage();
      send({ type: "memory", rss, heapUsed, external });
      return;
    }
    case "stop":
      void (async () => {
        await worker?.stop(0);
        await queue.close();
        // As the throttling plugin sees them: minting a token is not a spaced write.
        const writes = github.calls.filter(
          (call) =>
            call.method !== "GET" &&
            !/^\/app\/installations\/[^/]+\/access_tokens$/.test(call.path),
        );
        const notifying = writes.filter((call) => throttling.triggersNotification(call.path));
        send({
          type: "stopped",
          writes: writes.length,
          notifying: notifying.length,
          reads: github.calls.length - writes.length,
          problems,
        });
        process.disconnect();
      })();
      return;
  }
});
send({ type: "ready" });
