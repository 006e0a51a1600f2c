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

/** A redactor of known values (and of what the detector finds), which can take more. */
export interface SecretRedactor extends Redactor {
  find: (text: string) => SecretMatch[];
  /**
   * A redactor of these values and `more`. Not `(text) => other(this(text))`:
   * each of two redactors runs every rule of the detector, so each text
   * would be scanned twice (the Action's job redactor did, for every log
   * line and transcript entry).
   */
  including(more: Iterable<string | undefined>): SecretRedactor;
}

export function createRedactor(secrets: Iterable<string | undefined> = []): SecretRedactor {
  const values = [...new Set([...secrets].filter((s): s is string => !!s))];
  const detector = createSecretDetector(values.map((value) => ({ name: "known-secret", value })));
  return Object.assign((text: string) => detector.redact(text), {
    find: detector.find,
    including: (more: Iterable<string | undefined>) => createRedactor([...values, ...more]),
  });
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
