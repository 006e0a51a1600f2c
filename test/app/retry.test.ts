import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { instantRetries } from "../helpers/instant-queue.js";

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

/** The machine's git, which the slow wrapper below runs. */
const GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

// The thread's comments, read before the agent starts (the client retries a 502 three times).
const THREAD = /^\/repos\/octo-org\/demo\/issues\/7\/comments$/;

const edits = (h: Harness) =>
  h.github.calls
    .filter((c) => c.method === "PATCH" && typeof c.body.body === "string")
    .map((c) => String(c.body.body));

const bodies = (h: Harness) => (h.github.comments.get(7) ?? []).map((c) => c.body);

describe("a job that meets GitHub failing past the client's own retries", () => {
  it("goes back to the queue, says when it tries again, and succeeds on the next attempt", async () => {
    const delays: number[] = [];
    harness = await startHarness({ steps: fixAddSteps(), queue: instantRetries(delays) });
    const h = harness;
    h.github.inject({ method: "GET", path: THREAD, times: 4, status: 502 });
    await h.probot.receive({
      id: "d-retry",
      name: "issue_comment",
      payload: issueComment(h, "@agent fix add"),
    } as never);
    await h.idle();

    expect(delays).toEqual([5_000]);
    expect(
      edits(h).some((body) => body.includes("trying again in about 5 s (attempt 2 of 3)")),
    ).toBe(true);
    expect(h.models).toHaveLength(1);
    expect(h.github.pulls).toHaveLength(1);
    // One tracking comment, edited from the retry note to the final report.
    expect(bodies(h)).toHaveLength(1);
    expect(bodies(h)[0]).toContain(h.github.pulls[0]?.html_url);
    expect(bodies(h)[0]).not.toContain("trying again");
  });

  it("gives up after its last attempt with one clear final comment", async () => {
    const delays: number[] = [];
    // git's fetches made slow: each attempt's mirror fetch is still running when its
    // thread read fails, and must be over before the job is (nothing of it outlives it).
    const bin = await mkdtemp(join(tmpdir(), "pw-slow-git-"));
    const log = join(bin, "fetches.log");
    await writeFile(
      join(bin, "git"),
      [
        "#!/bin/sh",
        'for a in "$@"; do if [ "$a" = fetch ] || [ "$a" = clone ]; then',
        `  echo start >> ${log}; sleep 0.5; ${GIT} "$@"; s=$?; echo end >> ${log}; exit $s`,
        "fi; done",
        `exec ${GIT} "$@"`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    harness = await startHarness({
      steps: fixAddSteps(),
      queue: instantRetries(delays),
      env: { PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` },
    });
    const h = harness;
    h.github.inject({ method: "GET", path: THREAD, times: 1_000, status: 502 });
    await h.probot.receive({
      id: "d-give-up",
      name: "issue_comment",
      payload: issueComment(h, "@agent fix add"),
    } as never);
    await h.idle();
    const fetches = (await readFile(log, "utf8")).trim().split("\n");
    await rm(bin, { recursive: true, force: true });
    expect(fetches.filter((line) => line === "start").length).toBeGreaterThan(0);
    expect(fetches.filter((line) => line === "end")).toHaveLength(
      fetches.filter((line) => line === "start").length,
    );

    // Three attempts: two retries (5 s, then 10 s, as BullMQ doubles), then the failure is final.
    expect(delays).toEqual([5_000, 10_000]);
    const notes = edits(h).filter((body) => body.includes("trying again"));
    expect(notes.some((body) => body.includes("(attempt 2 of 3)"))).toBe(true);
    expect(notes.some((body) => body.includes("(attempt 3 of 3)"))).toBe(true);
    expect(h.models).toHaveLength(0);
    expect(h.github.pulls).toHaveLength(0);
    const [final] = bodies(h);
    expect(bodies(h)).toHaveLength(1);
    expect(final).toContain("Something went wrong and the job stopped");
    expect(final).toContain("502");
    expect(final).not.toContain("trying again");
    expect(h.github.reactions).toContainEqual(expect.objectContaining({ content: "confused" }));
  });
});
