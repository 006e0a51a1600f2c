import { describe, expect, it, vi } from "vitest";
import { createRedactor, redactValue } from "../../src/agent/redact.js";
import { DETECTOR_RULES } from "../../src/secrets/detector.js";
import { mayFind } from "../../src/secrets/rule.js";

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

  it("takes more values with including(), and still scans a text once", () => {
    const base = createRedactor(["topsecret-123"]);
    const job = base.including(["plain-job-value-4242", undefined]);
    const text = "topsecret-123 and plain-job-value-4242 and DB_PASSWORD=hunter22xyz";
    const redacted = job(text);
    expect(redacted).not.toContain("topsecret-123");
    expect(redacted).not.toContain("plain-job-value-4242");
    expect(redacted).not.toContain("hunter22xyz");
    // The first redactor is as it was.
    expect(base(text)).toContain("plain-job-value-4242");
    expect(job.find(text).map((m) => text.slice(m.start, m.end))).toEqual(
      expect.arrayContaining(["topsecret-123", "plain-job-value-4242"]),
    );
    // Every rule of the detector runs once per text, not once per redactor
    // (a rule whose keywords the text holds: the others do not run on it).
    const rule = DETECTOR_RULES.find((candidate) => mayFind(candidate, text.toLowerCase()));
    if (!rule) throw new Error("no rule of the detector runs on the text");
    const find = vi.spyOn(rule, "find");
    try {
      job(text);
      expect(find).toHaveBeenCalledTimes(1);
    } finally {
      find.mockRestore();
    }
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
