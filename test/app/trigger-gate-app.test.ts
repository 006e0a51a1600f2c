import { afterEach, describe, expect, it } from "vitest";
import {
  aim,
  type Harness,
  issueComment,
  type Payload,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import type { FakeRoute } from "../helpers/fake-github.js";

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

async function send(h: Harness, name: string, payload: unknown, id: string): Promise<void> {
  await h.probot.receive({ id, name, payload } as never);
}

function push(h: Harness, branch: string): Payload {
  return aim(
    {
      ref: `refs/heads/${branch}`,
      before: "0".repeat(40),
      after: h.repo.sha("main"),
      deleted: false,
      repository: { owner: { login: "octo-org" } },
      sender: { login: "octocat" },
    },
    h.repo.url,
    { login: "octocat" },
  );
}

describe("the webhook's gate when GitHub or the config changes under it", () => {
  it("stores a request when the bot's own login cannot be looked up, and the worker runs it", async () => {
    // GitHub fails GET /app (every retry of the webhook's lookup), then recovers.
    let failures = 0;
    const downApp: FakeRoute = [
      "GET",
      /^\/app$/,
      () => {
        failures += 1;
        return failures <= 4
          ? { status: 502, body: { message: "Server Error" } }
          : { status: 200, body: { slug: "patchwright", id: 1 } };
      },
    ];
    harness = await startHarness({
      steps: fixAddSteps(),
      // No PATCHWRIGHT_BOT_LOGIN: the login comes from GET /app.
      env: { PATCHWRIGHT_BOT_LOGIN: "" },
      github: { routes: [downApp] },
    });
    const h = harness;
    await send(h, "issue_comment", issueComment(h, "@agent fix add"), "d-login-down");
    // The webhook's own lookup failed (and was given up on) before the job was stored.
    expect(failures).toBeGreaterThanOrEqual(4);
    await h.idle();
    expect(h.models).toHaveLength(1);
    expect(h.github.pulls).toHaveLength(1);
    expect(h.github.reactions).toContainEqual(expect.objectContaining({ content: "eyes" }));
  });

  it("reads a repository's config again after a push to its default branch, so a new phrase works at once", async () => {
    let configYaml = "trigger_phrase: '@agent'\n";
    const config: FakeRoute = [
      "GET",
      /\/contents\/\.github(%2F|\/)patchwright\.yml$/,
      (m) => ({
        status: 200,
        body: {
          type: "file",
          encoding: "base64",
          content: Buffer.from(configYaml).toString("base64"),
          path: m[0],
        },
      }),
    ];
    harness = await startHarness({ steps: fixAddSteps(), github: { routes: [config] } });
    const h = harness;
    await send(h, "issue_comment", issueComment(h, "/bot fix add"), "d-old-phrase");
    await h.idle();
    expect(h.models).toHaveLength(0);

    configYaml = "trigger_phrase: /bot\n";
    // A push elsewhere does not touch the config the gate goes by.
    await send(h, "push", push(h, "feature/x"), "d-push-feature");
    await send(h, "issue_comment", issueComment(h, "/bot fix add"), "d-still-cached");
    await h.idle();
    expect(h.models).toHaveLength(0);

    await send(h, "push", push(h, "main"), "d-push-main");
    const comment = issueComment(h, "/bot fix add");
    comment.comment.id = 556;
    await send(h, "issue_comment", comment, "d-new-phrase");
    await h.idle();
    expect(h.models).toHaveLength(1);
    expect(h.github.pulls).toHaveLength(1);
  });
});
