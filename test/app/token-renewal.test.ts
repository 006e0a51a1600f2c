import { basename, dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/model/scripted.js";
import {
  type Harness,
  issueComment,
  type RecordingModel,
  startHarness,
  stopHarness,
} from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http-server.js";

/**
 * An installation token lasts an hour, and a job can outlast it. Here every
 * token GitHub mints is minutes from its end, and the git server stops
 * taking the ones minted before the agent started (what an hour later
 * looks like): the push at the end of the job must go with a new one.
 */

let harness: Harness | undefined;
let server: GitHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await stopHarness(harness);
  harness = undefined;
});

describe("a job that outlasts its installation token", () => {
  it("fetches with the first token and pushes with a renewed one", async () => {
    const minted: string[] = [];
    let revokedBelow = 0;
    const scripted = createScriptedModel(fixAddSteps());
    // The agent's first request: every token minted so far has run out.
    const model: RecordingModel = {
      ...scripted,
      complete: (...args: Parameters<RecordingModel["complete"]>) => {
        revokedBelow ||= minted.length;
        return scripted.complete(...args);
      },
    };
    harness = await startHarness({
      steps: [],
      scripts: [model],
      github: {
        configYaml: "verify: npm test\n",
        mintToken: () => {
          minted.push(`ghs_renewal${minted.length + 1}_`.padEnd(40, "x"));
          return {
            token: minted.at(-1) as string,
            expiresAt: new Date(Date.now() + 5 * 60_000).toISOString(),
          };
        },
      },
    });
    const running = harness;
    server = await startGitHttpServer({
      projectRoot: dirname(running.repo.dir),
      token: "",
      accepts: (token) => minted.indexOf(token) >= revokedBelow,
      env: running.repo.env,
    });
    const payload = issueComment(running, "@agent please fix this");
    payload.repository.clone_url = server.url(basename(running.repo.dir, ".git"));
    await running.probot.receive({ id: "d-1", name: "issue_comment", payload } as never);
    await running.idle();

    const [pull] = running.github.pulls;
    expect(pull?.head.ref).toBe("agent/issue-7-add-returns-the-wrong-sum");
    expect(running.repo.show(pull?.head.ref ?? "", "src/add.js")).toContain("a + b");
    expect(revokedBelow).toBeGreaterThan(0);
    expect(minted.length).toBeGreaterThan(revokedBelow);
    const pushes = server.requests.filter((r) => r.path.endsWith("git-receive-pack"));
    expect(pushes.length).toBeGreaterThan(0);
    expect(pushes.every((r) => r.authorized && r.status === 200)).toBe(true);
    expect(server.requests.filter((r) => r.status === 401)).toEqual([]);
  });
});
