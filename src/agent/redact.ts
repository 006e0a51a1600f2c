import { MIN_SECRET_LENGTH, TOKEN_PATTERNS } from "../secrets/patterns.js";

/**
 * Removes secrets from text before it is stored or shown: transcripts, logs,
 * comments and PR bodies all pass through here. Known secret values (the
 * tokens and keys this process holds) are replaced exactly; well-known token
 * shapes are replaced wherever they appear, since text from issues, files or
 * command output may carry someone else's.
 */

export const REDACTED = "[REDACTED]";

export type Redactor = (text: string) => string;

export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const values = [
    ...new Set([...secrets].filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH)),
  ]
    // Longest first, so a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const value of values) out = out.split(value).join(REDACTED);
    for (const { pattern } of TOKEN_PATTERNS) {
      out = out.replace(pattern, (_match, prefix?: string) =>
        typeof prefix === "string" && prefix.endsWith(":") ? `${prefix}${REDACTED}@` : REDACTED,
      );
    }
    return out;
  };
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
