import { createSecretDetector } from "../secrets/detector.js";
import type { SecretMatch } from "../secrets/rule.js";

/**
 * Removes secrets from text before it leaves: for the model, a transcript,
 * a log, a comment or a PR body. The values this process holds (its tokens
 * and keys) are replaced exactly, and so is everything the secret detector
 * (secrets/detector.ts: secretlint's rules and ours) finds, since text from
 * issues, files, CI logs or command output may carry someone else's. Each
 * becomes `[redacted: <rule>]`, so the model knows something was there.
 */

export interface Redactor {
  (text: string): string;
  /** Where the secrets are (the agent puts a quoted placeholder back to its value in an edit). */
  find?: ((text: string) => SecretMatch[]) | undefined;
}

export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const values = [...new Set([...secrets].filter((s): s is string => !!s))];
  const detector = createSecretDetector(values.map((value) => ({ name: "known-secret", value })));
  return Object.assign((text: string) => detector.redact(text), { find: detector.find });
}

/** Deeply redacts every string inside a JSON-like value. */
export function redactValue(value: unknown, redact: Redactor): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redact)]));
  }
  return value;
}
