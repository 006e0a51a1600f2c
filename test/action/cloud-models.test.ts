import { afterEach, describe, expect, it } from "vitest";
import { type FakeBedrock, startFakeBedrock } from "../helpers/fake-bedrock-server.js";
import { httpError, reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  eventPayload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * The bundle builds Bedrock's and Vertex's SDKs apart from the Messages
 * client, each with its own copy of Anthropic's SDK (scripts/bundle-action.mjs):
 * these runs go through that copy, whose errors are not the Messages
 * client's classes. A 4xx must still read as the API's answer (not retried),
 * and a 429 as one to try again.
 */

const bundle = useBundle();

const MODEL = "bedrock/anthropic.claude-haiku-4-5-20251001-v1:0";
const CREDENTIALS = { accessKeyId: "AKIDFAKEBEDROCK", region: "us-west-2" };

let world: ActionWorld | undefined;
let bedrock: FakeBedrock | undefined;
afterEach(async () => {
  await bedrock?.close();
  await world?.close();
  world = undefined;
  bedrock = undefined;
});

async function dispatch(steps: Parameters<typeof startFakeBedrock>[0]) {
  world = await startWorld();
  bedrock = await startFakeBedrock(steps, CREDENTIALS);
  return runAction(bundle.entry, world, {
    event: "workflow_dispatch",
    payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
    inputs: { github_token: TOKEN, prompt: "Tidy up", model: MODEL, max_turns: "3" },
    env: {
      AWS_REGION: CREDENTIALS.region,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: "s3cret-bedrock-key",
      ANTHROPIC_BEDROCK_BASE_URL: bedrock.url,
    },
  });
}

describe("the bundled Action on a Bedrock model", () => {
  it("tries a throttled request again and ends the run with the model's answer", async () => {
    const run = await dispatch([httpError(429, "Too many requests"), reply("Nothing to change.")]);
    expect(run.code, run.log).toBe(0);
    expect(bedrock?.requests).toHaveLength(2);
    expect(run.log).toContain("Nothing to change.");
  }, 60_000);

  it("fails at once on a 4xx, naming Bedrock, without the secret key", async () => {
    const run = await dispatch([httpError(400, "The model id is not valid")]);
    expect(run.code).not.toBe(0);
    // Read as a connection failure, it would have been tried again (8 times).
    expect(bedrock?.requests).toHaveLength(1);
    expect(run.log).toMatch(/Amazon Bedrock error \(400/);
    expect(run.log).not.toContain("s3cret-bedrock-key");
  }, 60_000);
});
