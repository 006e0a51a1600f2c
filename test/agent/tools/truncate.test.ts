import { describe, expect, it } from "vitest";
import { HeadTailBuffer, truncateOutput } from "../../../src/agent/tools/truncate.js";

describe("truncateOutput", () => {
  it("leaves short text alone", () => {
    expect(truncateOutput("hello", 10)).toBe("hello");
  });

  it("keeps the head and the tail and says how much was cut", () => {
    const text = `HEAD${"x".repeat(1000)}TAIL`;
    const out = truncateOutput(text, 100);
    expect(out.startsWith("HEAD")).toBe(true);
    expect(out.endsWith("TAIL")).toBe(true);
    expect(out).toContain("[... 908 characters cut ...]");
    expect(out.length).toBeLessThan(150);
  });

  it("caps at 50,000 characters by default", () => {
    const out = truncateOutput("a".repeat(200_000));
    expect(out).toContain("[... 150000 characters cut ...]");
  });
});

describe("HeadTailBuffer", () => {
  it("keeps head and tail of streamed chunks with bounded memory", () => {
    const buffer = new HeadTailBuffer(20);
    buffer.push("START-");
    for (let i = 0; i < 1000; i++) buffer.push(Buffer.from("middle "));
    buffer.push("-END");
    const out = buffer.toString();
    expect(out.startsWith("START-")).toBe(true);
    expect(out.endsWith("-END")).toBe(true);
    expect(out).toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
    expect(buffer.cut).toBe(6 + 7000 + 4 - 20);
  });

  it("decodes UTF-8 split across chunks", () => {
    const buffer = new HeadTailBuffer(100);
    const bytes = Buffer.from("héllo");
    buffer.push(bytes.subarray(0, 2));
    buffer.push(bytes.subarray(2));
    expect(buffer.toString()).toBe("héllo");
  });
});
