import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isCutStep, isErrorStep, type ScriptData } from "../../src/agent/model/script.js";
import { errorBody, messageEvents, sse } from "./fake-anthropic-events.js";
import {
  cutAfter,
  type LoopbackServer,
  sendJson,
  startRecordingServer,
} from "./fake-openai-server.js";

/**
 * A loopback Google Vertex AI endpoint for Claude
 * (`POST /v1/projects/<p>/locations/<r>/publishers/anthropic/models/<m>:streamRawPredict`,
 * Messages API SSE) plus the OAuth token endpoint that a standard credential
 * file (`external_account_authorized_user`, as `gcloud` writes for workforce
 * identity) refreshes against. Model calls must carry the minted token.
 */

export interface FakeVertex extends LoopbackServer {
  /** A credentials file for GOOGLE_APPLICATION_CREDENTIALS, pointing at this server. */
  writeCredentials(dir: string): Promise<string>;
  tokenRequests(): number;
}

const ACCESS_TOKEN = "ya29.fake-vertex-access-token";

export async function startFakeVertex(
  steps: ScriptData[],
  expected: { projectId: string; region: string },
): Promise<FakeVertex> {
  const queue = [...steps];
  let count = 0;
  let tokens = 0;
  const server = await startRecordingServer((request, res) => {
    if (request.method === "POST" && request.path === "/token") {
      tokens += 1;
      sendJson(res, 200, { access_token: ACCESS_TOKEN, expires_in: 3600, token_type: "Bearer" });
      return;
    }
    const prefix = `/v1/projects/${expected.projectId}/locations/${expected.region}/publishers/anthropic/models/`;
    const route = request.path.startsWith(prefix)
      ? /^([^/:]+):streamRawPredict$/.exec(decodeURIComponent(request.path.slice(prefix.length)))
      : null;
    if (request.method !== "POST" || !route) {
      sendJson(res, 404, {
        error: { code: 404, message: `no route ${request.method} ${request.path}` },
      });
      return;
    }
    if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) {
      sendJson(res, 401, {
        error: { code: 401, message: "Request had invalid authentication credentials." },
      });
      return;
    }
    const step = queue.shift();
    if (!step) {
      sendJson(res, 400, { error: { code: 400, message: "fake-vertex: script exhausted" } });
      return;
    }
    if (isErrorStep(step)) {
      sendJson(res, step.error.status, errorBody(step));
      return;
    }
    const model = route[1] ?? "claude";
    const id = `msg_vrtx_${++count}`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (isCutStep(step)) {
      const events = messageEvents(
        { content: step.cut.content ?? [{ type: "text", text: "never finishes" }] },
        id,
        model,
      );
      cutAfter(
        res,
        events
          .slice(0, step.cut.afterEvents ?? 3)
          .map(sse)
          .join(""),
      );
      return;
    }
    for (const event of messageEvents(step, id, model)) res.write(sse(event));
    res.end();
  });
  return {
    ...server,
    tokenRequests: () => tokens,
    writeCredentials: (dir) => writeVertexCredentials(dir, server.url),
  };
}

/**
 * Google credentials whose token exchange goes to `baseUrl` (an external
 * account with a refresh token: no key to sign, one POST for a token).
 */
export async function writeVertexCredentials(dir: string, baseUrl: string): Promise<string> {
  const file = join(dir, "vertex-credentials.json");
  await writeFile(
    file,
    JSON.stringify({
      type: "external_account_authorized_user",
      audience: "//iam.googleapis.com/locations/global/workforcePools/fake/providers/fake",
      client_id: "fake-client",
      client_secret: "fake-secret",
      refresh_token: "fake-refresh-token",
      token_url: `${baseUrl}/token`,
      token_info_url: `${baseUrl}/tokeninfo`,
    }),
  );
  return file;
}
