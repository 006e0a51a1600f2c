import { describe, expect, it } from "vitest";
import { createRedactor, redactValue } from "../../src/agent/redact.js";

const KNOWN = "[redacted: known-secret]";

describe("redaction", () => {
  it("replaces known secret values exactly, the longer one whole, and their base64 forms", () => {
    const redact = createRedactor([
      "supersecretvalue",
      "supersecretvalue-extended",
      "short",
      undefined,
    ]);
    const base64 = Buffer.from("supersecretvalue").toString("base64");
    expect(redact(`a supersecretvalue-extended b supersecretvalue c short d ${base64}`)).toBe(
      `a ${KNOWN} b ${KNOWN} c short d ${KNOWN}`,
    );
  });

  it("replaces what the detector finds, naming the rule, and keeps the URL around a password", () => {
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
    expect(out).toContain("[redacted: github-token]");
    expect(out).toContain("[redacted: private-key]");
    expect(out).toMatch(/x-access-token:\[redacted: [a-z-]+\]@github\.com\/o\/r\.git/);
  });

  it("redacts strings nested in objects and arrays", () => {
    const redact = createRedactor(["topsecret-123"]);
    expect(redactValue({ a: ["topsecret-123", 1], b: { c: "x topsecret-123" } }, redact)).toEqual({
      a: [KNOWN, 1],
      b: { c: `x ${KNOWN}` },
    });
  });

  it("leaves text it has redacted as it is when it runs again", () => {
    const redact = createRedactor(["topsecret-123"]);
    const once = redact(
      "DB_PASSWORD=hunter22xyz topsecret-123 https://u:p4ssw0rd@h.example/ AWS_SECRET_ACCESS_KEY=" +
        "a".repeat(40),
    );
    expect(redact(once)).toBe(once);
  });
});
