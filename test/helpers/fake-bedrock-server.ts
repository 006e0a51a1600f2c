import { crc32 } from "node:zlib";
import { isCutStep, isErrorStep, type ScriptData } from "../../src/agent/model/script.js";
import { messageEvents } from "./fake-anthropic-events.js";
import {
  cutAfter,
  type LoopbackServer,
  sendJson,
  startRecordingServer,
} from "./fake-openai-server.js";

/**
 * A loopback Amazon Bedrock runtime: `POST /model/<id>/invoke-with-response-stream`
 * answered as Bedrock does, in AWS's binary event-stream framing (each frame
 * a `chunk` event whose JSON payload carries one Messages API event,
 * base64-encoded). Requests must be SigV4-signed with the test's access key
 * for the expected region and the `bedrock` service.
 */

export interface FakeBedrock extends LoopbackServer {}

export async function startFakeBedrock(
  steps: ScriptData[],
  expected: { accessKeyId: string; region: string },
): Promise<FakeBedrock> {
  const queue = [...steps];
  let count = 0;
  return startRecordingServer((request, res) => {
    const route = /^\/model\/([^/]+)\/invoke-with-response-stream$/.exec(request.path);
    if (request.method !== "POST" || !route) {
      sendJson(res, 404, { message: `no route ${request.method} ${request.path}` });
      return;
    }
    const credential = `Credential=${expected.accessKeyId}/`;
    const auth = request.headers.authorization ?? "";
    if (
      !auth.startsWith("AWS4-HMAC-SHA256 ") ||
      !auth.includes(credential) ||
      !auth.includes(`/${expected.region}/bedrock/aws4_request`)
    ) {
      sendJson(
        res,
        403,
        { message: "The security token included in the request is invalid." },
        { "x-amzn-errortype": "UnrecognizedClientException" },
      );
      return;
    }
    const step = queue.shift();
    if (!step) {
      sendJson(
        res,
        400,
        { message: "fake-bedrock: script exhausted" },
        { "x-amzn-errortype": "ValidationException" },
      );
      return;
    }
    if (isErrorStep(step)) {
      const type =
        step.error.status === 429
          ? "ThrottlingException"
          : step.error.status >= 500
            ? "ServiceUnavailableException"
            : "ValidationException";
      sendJson(
        res,
        step.error.status,
        { message: step.error.message },
        { "x-amzn-errortype": type },
      );
      return;
    }
    const model = decodeURIComponent(route[1] ?? "");
    const id = `msg_bdrk_${++count}`;
    res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
    if (isCutStep(step)) {
      const events = messageEvents(
        { content: step.cut.content ?? [{ type: "text", text: "never finishes" }] },
        id,
        model,
      );
      cutAfter(
        res,
        Buffer.concat(events.slice(0, step.cut.afterEvents ?? 3).map((e) => chunkFrame(e.data))),
      );
      return;
    }
    for (const event of messageEvents(step, id, model)) res.write(chunkFrame(event.data));
    res.end();
  });
}

/** One event-stream message: prelude (lengths + CRC), headers, payload, message CRC. */
function chunkFrame(event: unknown): Buffer {
  const payload = Buffer.from(
    JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString("base64") }),
  );
  const headers = Buffer.concat([
    header(":event-type", "chunk"),
    header(":content-type", "application/json"),
    header(":message-type", "event"),
  ]);
  const total = 12 + headers.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, headers, payload]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, crc]);
}

/** A string header: name length, name, type 7 (string), value length, value. */
function header(name: string, value: string): Buffer {
  const nameBytes = Buffer.from(name);
  const valueBytes = Buffer.from(value);
  const out = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
  out.writeUInt8(nameBytes.length, 0);
  nameBytes.copy(out, 1);
  out.writeUInt8(7, 1 + nameBytes.length);
  out.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
  valueBytes.copy(out, 4 + nameBytes.length);
  return out;
}
