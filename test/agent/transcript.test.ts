import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/agent/redact.js";
import { openTranscript } from "../../src/agent/transcript.js";
import { makeTempDir } from "../helpers/temp-dir.js";

describe("transcript", () => {
  it("writes one redacted JSON line per event, without deltas or file contents", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "nested", "run.jsonl");
    const transcript = await openTranscript(path, createRedactor(["my-secret-token"]), {
      now: () => 0,
    });
    transcript.write({
      type: "run_start",
      task: "use my-secret-token",
      model: "m",
      cwd: dir,
      policy: "default",
    });
    transcript.write({ type: "text_delta", turn: 1, text: "partial" });
    transcript.write({
      type: "file_change",
      turn: 1,
      toolCallId: "c",
      path: "a.ts",
      before: Buffer.from("old"),
      after: Buffer.from("newer"),
    });
    transcript.write({ type: "stop", reason: "end_turn", turns: 1 });
    await transcript.close();

    const lines = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["run_start", "file_change", "stop"]);
    expect(lines[0]).toMatchObject({
      time: "1970-01-01T00:00:00.000Z",
      task: "use [redacted: known-secret]",
    });
    expect(lines[1]).toMatchObject({ path: "a.ts", beforeBytes: 3, afterBytes: 5 });
    expect(JSON.stringify(lines)).not.toContain("my-secret-token");
  });

  it("redacts the event's strings, not its own timestamp", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "run.jsonl");
    const seen: string[] = [];
    const redactor = createRedactor(["my-secret-token"]);
    const redact = (text: string) => {
      seen.push(text);
      return redactor(text);
    };
    const transcript = await openTranscript(path, redact, { now: () => 0 });
    transcript.write({ type: "stop", reason: "end_turn", turns: 1 });
    await transcript.close();
    expect(seen).toEqual(["stop", "end_turn"]);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      type: "stop",
      reason: "end_turn",
      turns: 1,
    });
  });

  it("keeps the order of many lines written at once", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "run.jsonl");
    const transcript = await openTranscript(path, createRedactor(), { now: () => 0 });
    for (let turn = 1; turn <= 200; turn++) transcript.write({ type: "turn_start", turn });
    await transcript.close();
    const turns = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).turn);
    expect(turns).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
  });

  it("says so when a line could not be written", async () => {
    // /dev/full takes the open and fails every write (ENOSPC), as a full disk would.
    const transcript = await openTranscript("/dev/full", createRedactor(), { now: () => 0 });
    transcript.write({ type: "stop", reason: "end_turn", turns: 1 });
    await expect(transcript.close()).rejects.toThrow(/ENOSPC/);
  });
});
