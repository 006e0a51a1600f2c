import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, redactValue } from "../../src/agent/redact.js";

describe("redaction", () => {
  it("replaces known secret values exactly, longest first", () => {
    const redact = createRedactor([
      "supersecretvalue",
      "supersecretvalue-extended",
      "short",
      undefined,
    ]);
    expect(redact("a supersecretvalue-extended b supersecretvalue c short")).toBe(
      `a ${REDACTED} b ${REDACTED} c short`,
    );
  });

  it("replaces well-known token shapes wherever they appear", () => {
    const redact = createRedactor();
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----";
    const text = [
      `ghs_${"a".repeat(36)}`,
      `github_pat_${"B".repeat(40)}`,
      `sk-ant-api03-${"x".repeat(30)}`,
      pem,
      "https://x-access-token:tok123@github.com/o/r.git",
    ].join(" ");
    const out = redact(text);
    expect(out).not.toMatch(/ghs_|github_pat_|sk-ant-|MIIabc|tok123/);
    expect(out).toContain("x-access-token:[REDACTED]@github.com");
  });

  it("redacts strings nested in objects and arrays", () => {
    const redact = createRedactor(["topsecret-123"]);
    expect(redactValue({ a: ["topsecret-123", 1], b: { c: "x topsecret-123" } }, redact)).toEqual({
      a: [REDACTED, 1],
      b: { c: `x ${REDACTED}` },
    });
  });
});
