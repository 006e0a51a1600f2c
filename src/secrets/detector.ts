import { EXTRA_RULES } from "./extra-rules.js";
import { hasHidden, visibleProjection } from "./invisible.js";
import { MIN_SECRET_LENGTH } from "./patterns.js";
import { PEM_LINES_RULE } from "./pem-lines.js";
import { mayFind, type SecretMatch, type SecretRule } from "./rule.js";
import { SECRETLINT_RULES } from "./secretlint-rules.js";

/**
 * The one secret detector: every channel that carries text to the model, to
 * GitHub, to a log or into a pushed commit asks it. Its rules are
 * secretlint's recommended preset and the rules it lacks (extra-rules.ts);
 * the values this process holds (the App's key, the installation token, the
 * model's API key) come on top, exactly and base64-encoded. Invisible
 * characters are looked through, so a token split by zero-width spaces is
 * found whole (and redacted with them).
 */

export const DETECTOR_RULES: readonly SecretRule[] = [
  ...SECRETLINT_RULES,
  ...EXTRA_RULES,
  PEM_LINES_RULE,
];

export interface KnownSecret {
  /** What a finding calls it: "the installation token", "ANTHROPIC_API_KEY". */
  name: string;
  value: string;
}

export interface SecretDetector {
  /** Every secret in `text`, in order, overlapping finds merged. */
  find(text: string): SecretMatch[];
  /** `text` with each secret replaced by `[redacted: <rule>]`. */
  redact(text: string): string;
}

/** Each value as is, base64 (an auth header), and inside git's basic-auth pair. */
function formsOf(value: string): string[] {
  const base64 = (text: string) => Buffer.from(text).toString("base64");
  return [value, base64(value), base64(`x-access-token:${value}`)];
}

function knownValuesRule(known: readonly KnownSecret[]): SecretRule {
  const needles = known
    .filter((secret) => secret.value.length >= MIN_SECRET_LENGTH)
    .flatMap((secret) => formsOf(secret.value).map((form) => ({ name: secret.name, form })));
  return {
    id: "known-secret",
    find(text) {
      const found: SecretMatch[] = [];
      for (const { name, form } of needles) {
        for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + form.length)) {
          found.push({ start: at, end: at + form.length, rule: name });
        }
      }
      return found;
    },
  };
}

/** Sorted by start; overlapping finds become one, named by the first. */
function merge(matches: SecretMatch[]): SecretMatch[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretMatch[] = [];
  for (const match of sorted) {
    const last = merged[merged.length - 1];
    if (last && match.start < last.end) last.end = Math.max(last.end, match.end);
    else merged.push({ ...match });
  }
  return merged;
}

/**
 * Up to this length a text is scanned only by the rules whose keywords it
 * holds (rule.ts). A longer one is scanned by every rule: looking for the
 * ~90 keywords costs about as much per kB as the rules themselves once their
 * expressions are compiled (measured with the expressions compiled, 2 kB of
 * code: 62 µs against 77; 8 kB: 253 against 233; 128 kB: 4.7 ms against 3.2),
 * and a process that scans such texts soon compiles them all anyway.
 */
export const KEYWORD_TEXT_LIMIT = 4096;

function scan(rules: readonly SecretRule[], text: string): SecretMatch[] {
  if (text.length > KEYWORD_TEXT_LIMIT) return rules.flatMap((rule) => rule.find(text));
  const lower = text.toLowerCase();
  return rules.flatMap((rule) => (mayFind(rule, lower) ? rule.find(text) : []));
}

function findWith(rules: readonly SecretRule[], text: string): SecretMatch[] {
  if (!hasHidden(text)) return merge(scan(rules, text));
  const { text: visible, offsets } = visibleProjection(text);
  return merge(
    scan(rules, visible).map((match) => ({
      ...match,
      start: offsets[match.start] ?? match.start,
      end: (offsets[match.end - 1] ?? match.end - 1) + 1,
    })),
  );
}

function redactMatches(text: string, matches: readonly SecretMatch[]): string {
  if (matches.length === 0) return text;
  let out = "";
  let from = 0;
  for (const match of matches) {
    out += `${text.slice(from, match.start)}[redacted: ${match.rule}]`;
    from = match.end;
  }
  return out + text.slice(from);
}

/** A detector for the rule set plus `known` values (named in findings by their `name`). */
export function createSecretDetector(
  known: readonly KnownSecret[] = [],
  /** false: the known values only, not the token-shape rules (published-release blobs, secret-scan.ts). */
  { shapes = true }: { shapes?: boolean } = {},
): SecretDetector {
  const byShape = shapes ? DETECTOR_RULES : [];
  const rules = known.length > 0 ? [knownValuesRule(known), ...byShape] : byShape;
  return {
    find: (text) => findWith(rules, text),
    redact: (text) => redactMatches(text, findWith(rules, text)),
  };
}
