import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  commentPayload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * The job's page uploaded as an artifact (action/actions-io.ts), the bundle's
 * @actions/artifact against a loopback stand-in for the runner's results
 * service (Twirp) and its blob storage: the one part of a run that loads the
 * artifact chunk, whose HTTP clients import node:http and node:https as the
 * bundle provides them, without Node's ESM facade (scripts/bundle-action.mjs).
 */

const bundle = useBundle();
let world: ActionWorld | undefined;
let results: Server | undefined;
afterEach(async () => {
  await world?.close();
  await new Promise((done) => (results ? results.close(done) : done(undefined)));
  world = undefined;
  results = undefined;
});

/** A token whose claims say which workflow run and job the artifact belongs to (unsigned: nobody checks it here). */
function runtimeToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ scp: "Actions.Results:run-1:job-1" })}.sig`;
}

/** The results service's two calls and the blob upload between them; what each was asked. */
async function startResultsService(): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = req.url ?? "";
      asked.push(`${req.method} ${url.split("?")[0]}`);
      const base = `http://127.0.0.1:${req.socket.localPort}`;
      res.setHeader("content-type", "application/json");
      if (url.endsWith("/CreateArtifact")) {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        asked.push(`name ${body.name}`);
        res.end(JSON.stringify({ ok: true, signed_upload_url: `${base}/blob/page.zip?sig=s` }));
      } else if (url.endsWith("/FinalizeArtifact")) {
        res.end(JSON.stringify({ ok: true, artifact_id: "42" }));
      } else {
        // The blob's blocks and block list.
        res.writeHead(201).end();
      }
    });
  });
  results = server;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, asked };
}

describe("the job's page as an artifact", () => {
  it("is uploaded through the results service and linked from the step summary", async () => {
    world = await startWorld({ steps: [reply("Nothing to change."), reply("Nothing to change.")] });
    const service = await startResultsService();
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "@agent tidy up"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      env: { ACTIONS_RUNTIME_TOKEN: runtimeToken(), ACTIONS_RESULTS_URL: service.url },
    });
    expect(run.code, run.log).toBe(0);
    expect(service.asked[0]).toMatch(/^POST \/twirp\/.+\/CreateArtifact$/);
    expect(service.asked[1]).toMatch(/^name patchwright-job-/);
    expect(service.asked.at(-1)).toMatch(/\/FinalizeArtifact$/);
    expect(run.log).not.toContain("could not attach the job's page");
    expect(run.summary).toContain("/artifacts/42");
  });
});
