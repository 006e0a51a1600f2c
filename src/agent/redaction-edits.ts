import { readFile } from "node:fs/promises";
import type { SecretMatch } from "../secrets/rule.js";
import { resolveInWorkspace } from "./tools/fs/paths.js";

/**
 * The model sees `[redacted: <rule>]` where a file holds a secret; the file
 * itself keeps it. When an edit quotes such a placeholder, it is put back to
 * the value it stands for in that file before the tool runs, so redaction
 * never writes a placeholder over a real value (edits see the real file; only
 * what leaves is redacted). A placeholder that cannot be tied to one value is
 * refused, with what to do instead, rather than guessed.
 */

const PLACEHOLDER = /\[redacted: ([^\]\n]+)\]/g;

type Find = (text: string) => SecretMatch[];

export type Restored = { input: unknown } | { error: string } | null;

function hasPlaceholder(text: unknown): text is string {
  return typeof text === "string" && text.includes("[redacted: ");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The file's secrets as the detector sees them: rule -> values, in file order. */
function secretsOf(text: string, find: Find): Map<string, string[]> {
  const byRule = new Map<string, string[]>();
  for (const match of find(text)) {
    const values = byRule.get(match.rule) ?? [];
    values.push(text.slice(match.start, match.end));
    byRule.set(match.rule, values);
  }
  return byRule;
}

function rulesIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? "");
}

/** Fills each placeholder, in order, with the next value given for its rule. */
function fill(text: string, next: (rule: string) => string | undefined): string | null {
  let failed = false;
  const out = text.replace(PLACEHOLDER, (whole, rule: string) => {
    const value = next(rule);
    if (value === undefined) failed = true;
    return value ?? whole;
  });
  return failed ? null : out;
}

function queue(values: Map<string, string[]>): (rule: string) => string | undefined {
  const used = new Map<string, number>();
  return (rule) => {
    const list = values.get(rule) ?? [];
    const at = used.get(rule) ?? 0;
    used.set(rule, at + 1);
    // One value everywhere: any count of placeholders is that value.
    return new Set(list).size === 1 ? list[0] : list[at];
  };
}

const REFUSED =
  "it quotes a [redacted: …] placeholder that cannot be tied to one value in the file. The file keeps its real values: leave the lines that hold them out of the edit (edit_file around them) instead of rewriting them.";

/** edit_file: the placeholders in old_string become the file's text at that place. */
function restoreEdit(input: Record<string, unknown>, real: string, find: Find): Restored {
  const oldString = input.old_string;
  if (typeof oldString !== "string") return null;
  const secrets = secretsOf(real, find);
  const parts = oldString.split(PLACEHOLDER);
  let source = "";
  parts.forEach((part, i) => {
    if (i % 2 === 0) source += escapeRegExp(part);
    else {
      const values = [...new Set(secrets.get(part) ?? [])].sort((a, b) => b.length - a.length);
      source += values.length > 0 ? `(${values.map(escapeRegExp).join("|")})` : "(?!)";
    }
  });
  const found = [...real.matchAll(new RegExp(source, "g"))];
  const captures = found.map((m) => m.slice(1).join("\0"));
  const first = found[0];
  if (!first || new Set(captures).size > 1) return { error: `edit_file was not run: ${REFUSED}` };
  const rules = rulesIn(oldString);
  const fromOld = new Map<string, string[]>();
  rules.forEach((rule, i) => {
    fromOld.set(rule, [...(fromOld.get(rule) ?? []), first[i + 1] ?? ""]);
  });
  const restoredOld = fill(oldString, queue(fromOld));
  const newString = input.new_string;
  const restoredNew = hasPlaceholder(newString) ? fill(newString, queue(fromOld)) : newString;
  if (restoredOld === null || restoredNew === null) {
    return { error: `edit_file was not run: ${REFUSED}` };
  }
  return { input: { ...input, old_string: restoredOld, new_string: restoredNew } };
}

/** write_file over an existing file: its placeholders take the file's values, in order. */
function restoreWrite(input: Record<string, unknown>, real: string | null, find: Find): Restored {
  const content = input.content;
  if (!hasPlaceholder(content)) return null;
  const secrets = real === null ? new Map<string, string[]>() : secretsOf(real, find);
  const wanted = rulesIn(content);
  const fits = wanted.every((rule) => {
    const values = secrets.get(rule) ?? [];
    const count = wanted.filter((r) => r === rule).length;
    return new Set(values).size === 1 || values.length === count;
  });
  const restored = fits ? fill(content, queue(secrets)) : null;
  return restored === null
    ? { error: `write_file was not run: ${REFUSED}` }
    : { input: { ...input, content: restored } };
}

/**
 * For a write-kind tool call whose input quotes a placeholder: the input
 * with the real values back, an error to return instead of running it, or
 * null when there is nothing to do.
 */
export async function restoreRedacted(
  tool: { name: string; kind: string },
  input: unknown,
  root: string,
  find: Find,
): Promise<Restored> {
  if (tool.kind !== "write" || !input || typeof input !== "object") return null;
  const fields = input as Record<string, unknown>;
  if (!Object.values(fields).some(hasPlaceholder)) return null;
  const path = fields.file_path;
  const real =
    typeof path === "string"
      ? await resolveInWorkspace(root, path)
          .then((resolved) => readFile(resolved.absolute, "utf8"))
          .catch(() => null)
      : null;
  if (tool.name === "edit_file") {
    return real === null ? null : restoreEdit(fields, real, find);
  }
  if (tool.name === "write_file") return restoreWrite(fields, real, find);
  return { error: `${tool.name} was not run: ${REFUSED}` };
}
