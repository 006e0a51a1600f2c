import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import type { SetTimer } from "../../src/queue/timer.js";
import { jobInputSchemas, type ServiceQueue } from "../../src/service/job-kinds/inputs.js";
import { readPlanMarker } from "../../src/thread/kinds/plan-output.js";
import {
  type Harness,
  type HarnessOptions,
  issueComment,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import { callTool, reply } from "../helpers/model-script.js";

/**
 * A plan before code, through the App end to end (fake GitHub, a scripted
 * model, the embedded queue): `@agent plan` answers with a plan from a
 * read-only run, and `@agent go` (with or without changes) or a writer's
 * 👍 carries it out. GitHub sends no webhook for a 👍: a queued watch looks
 * for one, and the queue's time is moved by hand here, so each look comes
 * exactly when the test says.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

/** Queue time that stands still until the test moves it; waits of 0 pass at once. */
function heldTime() {
  let now = Date.now();
  const timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  const setTimer: SetTimer = (fn, ms) => {
    if (ms <= 0) {
      const handle = setImmediate(fn);
      return { cancel: () => clearImmediate(handle) };
    }
    const timer = { at: now + ms, fn, cancelled: false };
    timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  };
  return {
    clock: { now: () => now },
    setTimer,
    advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((t) => !t.cancelled && t.at <= now)) {
        timer.cancelled = true;
        timer.fn();
      }
    },
  };
}

let queue: ServiceQueue | undefined;
let time: ReturnType<typeof heldTime>;

async function start(
  options: Omit<HarnessOptions, "steps" | "scripts"> & {
    scripts: NonNullable<HarnessOptions["scripts"]>;
  },
) {
  time = heldTime();
  harness = await startHarness({
    steps: [],
    ...options,
    queue: async (env) => {
      queue = await createLocalQueue({
        kinds: jobInputSchemas,
        dir: join(env.PATCHWRIGHT_CACHE_DIR ?? "", "jobs"),
        clock: time.clock,
        setTimer: time.setTimer,
      });
      return queue;
    },
  });
  return harness;
}

let comments = 555;
async function say(h: Harness, body: string, sender = "octocat") {
  comments += 1;
  const payload = issueComment(h, body, sender);
  payload.comment.id = comments;
  payload.comment.html_url = `https://github.com/octo-org/demo/issues/7#issuecomment-${comments}`;
  await h.probot.receive({ id: `delivery-${comments}`, name: "issue_comment", payload } as never);
  await h.idle();
  return comments;
}

const bodies = (h: Harness) => (h.github.comments.get(7) ?? []).map((c) => c.body);
const planComment = (h: Harness) => {
  const found = (h.github.comments.get(7) ?? []).find((c) => readPlanMarker(c.body));
  if (!found) throw new Error(`no plan comment among: ${bodies(h).join("\n---\n")}`);
  return found;
};
const refs = (h: Harness) =>
  execFileSync("git", ["for-each-ref", "--format=%(refname)"], { cwd: h.repo.dir, env: h.repo.env })
    .toString()
    .trim()
    .split("\n");
const prompt = (h: Harness, job: number) => JSON.stringify(h.models[job]?.requests[0]?.messages);

const PLAN_ANSWER = [
  "Add multiply() in its own module and test it beside add().",
  "",
  "```plan-json",
  JSON.stringify({
    files: [
      { path: "src/multiply.js", change: "new module exporting multiply(a, b)" },
      { path: "test.js", change: "assert multiply(2, 3) is 6" },
    ],
    approach: ["write src/multiply.js", "extend test.js"],
    tests: ["npm test"],
    risks: ["none: a new function"],
    complexity: "small",
  }),
  "```",
].join("\n");

/** The read-only run: it tries to write (and is refused), reads, and answers with the plan. */
function planSteps(answer = PLAN_ANSWER) {
  return [
    callTool("write_file", { file_path: "src/multiply.js", content: "oops\n" }),
    callTool("read_file", { file_path: "src/add.js" }),
    reply(answer),
  ];
}

const MULTIPLY = "module.exports = { multiply: (a, b) => a * b };\n";
function goSteps() {
  return [
    callTool(
      "write_file",
      { file_path: "src/multiply.js", content: MULTIPLY },
      { say: "Add multiply." },
    ),
    reply("Added multiply() in src/multiply.js."),
  ];
}

const planWatches = async () =>
  (await queue?.list({ where: (r) => r.kind === "plan_watch" })) ?? [];
const looksAt = (h: Harness, id: number) =>
  h.github.calls.filter((c) => c.method === "GET" && c.path.endsWith(`/issues/comments/${id}`))
    .length;

describe("a plan before code, in the App", () => {
  it("plans read-only with a checklist and pushes nothing; `@agent go` carries the plan out into a PR that links it", async () => {
    const h = await start({ scripts: [planSteps(), goSteps()] });
    await say(h, "@agent plan add a multiply function");

    // One comment: the plan, as a checklist, with its cost and how to go ahead.
    expect(bodies(h)).toHaveLength(1);
    const plan = planComment(h);
    expect(plan.body).toContain("### 📋 Plan");
    expect(plan.body).toContain("- [ ] `src/multiply.js`: new module exporting multiply(a, b)");
    expect(plan.body).toContain("- [ ] `test.js`");
    expect(plan.body).toContain("- [ ] npm test");
    expect(plan.body).toMatch(/Making this plan cost \$\d+\.\d+ \(measured\)/);
    expect(plan.body).toContain("an estimate, not a quote");
    expect(plan.body).toContain("`@agent go`");
    expect(readPlanMarker(plan.body)).toMatchObject({
      task: "add a multiply function",
      by: "octocat",
      files: ["src/multiply.js", "test.js"],
    });
    // Read-only: the write was refused, nothing was pushed, no pull request.
    const afterWrite = JSON.stringify(h.models[0]?.requests[1]?.messages.at(-1));
    expect(afterWrite).toContain("the read-only preset does not allow changing files");
    expect(refs(h)).toEqual(["refs/heads/main"]);
    expect(h.github.pulls).toHaveLength(0);
    // The plan job's own instruction asked for a plan, not a change.
    expect(prompt(h, 0)).toContain("Make a plan for this request from @octocat");
    expect(prompt(h, 0)).toContain("plan-json");
    // In the App, the plan waits for a 👍 too.
    expect(await planWatches()).toEqual([
      expect.objectContaining({ state: "queued", key: `octo-org/demo#7:plan:${plan.id}` }),
    ]);

    await say(h, "@agent go");
    expect(h.models).toHaveLength(2);
    const instruction = prompt(h, 1);
    expect(instruction).toContain("Carry out the plan below");
    expect(instruction).toContain("add a multiply function");
    expect(instruction).toContain("new module exporting multiply(a, b)");
    expect(instruction).not.toContain("Changes to the plan");

    const [pull] = h.github.pulls;
    expect(h.repo.show(pull?.head.ref ?? "", "src/multiply.js")).toContain("a * b");
    expect(pull?.body).toContain("### Plan");
    expect(pull?.body).toContain(
      `[the plan](${plan.html_url}) made for @octocat; @octocat said go`,
    );
    // The result differs from the plan: test.js was planned and not changed.
    expect(pull?.body).toContain("- Planned but not changed: `test.js`");
    // The plan says it went ahead, and where.
    const went = planComment(h);
    expect(readPlanMarker(went.body)?.went).toMatchObject({ by: "octocat" });
    expect(went.body).toContain("▶️ @octocat said go: [the work](");
    // With the plan taken, its watch ends at its next look.
    time.advance(60_000);
    await h.idle();
    expect(await planWatches()).toEqual([
      expect.objectContaining({
        state: "done",
        outcome: expect.objectContaining({ message: "@octocat already said go" }),
      }),
    ]);
  });

  it("carries the go's own changes into the instruction: `@agent go, but keep the old API`", async () => {
    const h = await start({ scripts: [planSteps(), goSteps()] });
    await say(h, "@agent plan add a multiply function");
    await say(h, "@agent go, but keep the old API");
    const instruction = prompt(h, 1);
    expect(instruction).toContain("Carry out the plan below");
    expect(instruction).toMatch(/Changes to the plan from @octocat[^"]*but keep the old API/);
    expect(h.github.pulls).toHaveLength(1);
  });

  it("goes ahead on a writer's 👍, found by the watch; a reader's or the bot's 👍 is nobody's go", async () => {
    const h = await start({
      scripts: [planSteps(), goSteps()],
      // Even a bot that could write is no one to say go.
      github: { permissions: { octocat: "write", reader: "read", "patchwright[bot]": "write" } },
    });
    await say(h, "@agent plan add a multiply function");
    const plan = planComment(h);
    expect(looksAt(h, plan.id)).toBe(1);

    h.github.react(plan.id, { login: "reader" });
    h.github.react(plan.id, { login: "patchwright[bot]" });
    time.advance(60_000);
    await h.idle();
    // Looked again, saw two 👍s from no one who may say go: nothing ran, it keeps watching.
    expect(looksAt(h, plan.id)).toBe(2);
    expect(h.models).toHaveLength(1);
    expect(h.github.pulls).toHaveLength(0);
    expect(await planWatches()).toEqual([expect.objectContaining({ state: "queued" })]);

    h.github.react(plan.id, { login: "octocat" });
    time.advance(60_000);
    await h.idle();
    expect(h.models).toHaveLength(2);
    expect(prompt(h, 1)).toContain("Carry out the plan below");
    const [pull] = h.github.pulls;
    expect(pull?.body).toContain(`[the plan](${plan.html_url})`);
    expect(readPlanMarker(planComment(h).body)?.went).toMatchObject({ by: "octocat" });
    // The go answered on the plan comment itself: 👀 when taken, 🚀 when done.
    expect(h.github.reactions.filter((r) => r.on === `issues/comments/${plan.id}`)).toEqual([
      { on: `issues/comments/${plan.id}`, content: "eyes" },
      { on: `issues/comments/${plan.id}`, content: "rocket" },
    ]);
    expect(await planWatches()).toEqual([
      expect.objectContaining({
        state: "done",
        outcome: expect.objectContaining({ conclusion: "go" }),
      }),
    ]);

    // A go after the 👍's: the plan is taken once.
    await say(h, "@agent go");
    expect(h.models).toHaveLength(2);
    expect(h.github.pulls).toHaveLength(1);
    expect(bodies(h).at(-1)).toContain("already went ahead: @octocat said go");
  });

  it("answers `@agent go` in a thread without a plan, and runs nothing", async () => {
    const h = await start({ scripts: [goSteps()] });
    await say(h, "@agent go");
    expect(h.models).toHaveLength(0);
    expect(h.github.pulls).toHaveLength(0);
    expect(bodies(h)).toEqual([expect.stringContaining("I found no plan of mine in this thread")]);
    expect(bodies(h)[0]).toContain("`@agent plan <what to do>`");
    expect(h.github.reactions.at(-1)).toMatchObject({ content: "confused" });
  });

  it("with plan_first: large, a small plan goes on to code in the same job, shown in the PR", async () => {
    const h = await start({
      scripts: [planSteps(), goSteps()],
      github: { configYaml: "plan_first: large\nplan_first_files: 2\n" },
    });
    await say(h, "@agent add a multiply function");
    expect(h.models).toHaveLength(2);
    expect(prompt(h, 0)).toContain("Make a plan for this request");
    expect(prompt(h, 1)).toContain("Carry out the plan below");
    expect(bodies(h)).toHaveLength(1);
    const [pull] = h.github.pulls;
    expect(pull?.body).toContain("### Plan");
    expect(pull?.body).toContain("few enough to go ahead without waiting");
    expect(pull?.body).toContain("<summary>The plan</summary>");
    expect(pull?.body).toContain("- Planned but not changed: `test.js`");
    expect(await planWatches()).toEqual([]);
  });

  it("with plan_first: large, a plan over the limit waits for a go", async () => {
    const h = await start({
      scripts: [planSteps(), goSteps()],
      github: { configYaml: "plan_first: large\nplan_first_files: 1\n" },
    });
    await say(h, "@agent add a multiply function");
    expect(h.models).toHaveLength(1);
    expect(h.github.pulls).toHaveLength(0);
    expect(readPlanMarker(planComment(h).body)?.task).toBe("add a multiply function");
    await say(h, "@agent go");
    expect(h.github.pulls).toHaveLength(1);
  });
});
