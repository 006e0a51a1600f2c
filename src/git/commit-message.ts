/**
 * Commit messages from the model's own words for a turn and the files it
 * touched, in Conventional Commit style, with no extra model call. Pure.
 */

export interface CoAuthor {
  name: string;
  login: string;
  id: number | string;
  /** Overrides the github.com noreply address (GitHub Enterprise). */
  email?: string;
}

export interface CommitMessageInput {
  /** What the model said during the turn. */
  text: string;
  /** Paths the commit touches, relative to the repository root. */
  files: string[];
  coAuthor?: CoAuthor;
  requestUrl?: string;
}

export interface CommitMessage {
  subject: string;
  body: string;
  trailers: string[];
  /** subject, body and trailers as `git commit` should receive them. */
  message: string;
}

export const SUBJECT_MAX = 72;
const BODY_MAX_CHARS = 1500;
const FILES_LISTED = 25;

export function buildCommitMessage(input: CommitMessageInput): CommitMessage {
  const prose = cleanProse(input.text);
  const sentences = splitSentences(prose);
  const chosen = chooseSentence(sentences);
  const description = chosen ? imperative(chosen) : fallbackDescription(input.files);
  const type = commitType(description, prose, input.files);
  const found = type === "chore" && isDepsOnly(input.files) ? "deps" : commitScope(input.files);
  const scope = found === type ? undefined : found;
  const { subject, complete } = assembleSubject(type, scope, description);

  const parts: string[] = [];
  const textBody = bodyText(input.text);
  if (textBody && (!complete || sentences.length > 1)) parts.push(textBody);
  if (input.files.length > 1) parts.push(fileList(input.files));
  const trailers: string[] = [];
  if (input.coAuthor) trailers.push(coAuthorTrailer(input.coAuthor));
  if (input.requestUrl) trailers.push(`Refs: ${input.requestUrl}`);
  const body = parts.join("\n\n");
  const message = [subject, body, trailers.join("\n")].filter(Boolean).join("\n\n");
  return { subject, body, trailers, message: `${message}\n` };
}

export function coAuthorTrailer(coAuthor: CoAuthor): string {
  const email = coAuthor.email ?? `${coAuthor.id}+${coAuthor.login}@users.noreply.github.com`;
  return `Co-authored-by: ${oneLine(coAuthor.name) || coAuthor.login} <${email}>`;
}

const TYPE_BY_VERB: Record<string, string> = {
  fix: "fix",
  correct: "fix",
  resolve: "fix",
  handle: "fix",
  prevent: "fix",
  avoid: "fix",
  guard: "fix",
  add: "feat",
  implement: "feat",
  create: "feat",
  introduce: "feat",
  support: "feat",
  allow: "feat",
  enable: "feat",
  refactor: "refactor",
  rename: "refactor",
  move: "refactor",
  extract: "refactor",
  simplify: "refactor",
  restructure: "refactor",
  reorganize: "refactor",
  split: "refactor",
  clean: "refactor",
  remove: "refactor",
  delete: "refactor",
  drop: "refactor",
  inline: "refactor",
  optimize: "perf",
  speed: "perf",
  cache: "perf",
  document: "docs",
  test: "test",
  bump: "chore",
  upgrade: "chore",
};

/** fix, feat, refactor, perf, docs, test, ci or chore. */
export function commitType(description: string, text: string, files: string[]): string {
  if (files.length > 0) {
    if (files.every(isDocFile)) return "docs";
    if (files.every(isTestFile)) return "test";
    if (files.every((f) => f.startsWith(".github/workflows/"))) return "ci";
    if (isDepsOnly(files)) return "chore";
  }
  const verb = description.split(" ")[0]?.toLowerCase() ?? "";
  const byVerb = TYPE_BY_VERB[verb];
  if (byVerb) return byVerb;
  if (/\b(bug|crash(es|ed)?|broken|fail(s|ed|ing|ure)?|error|regression|wrong)\b/i.test(text)) {
    return "fix";
  }
  return "chore";
}

const GENERIC_DIRS = new Set([
  "",
  ".",
  "src",
  "lib",
  "libs",
  "source",
  "test",
  "tests",
  "spec",
  "specs",
  "__tests__",
  "app",
  "packages",
  "pkg",
  "internal",
  "main",
  "java",
  "kotlin",
  "github",
  "workflows",
]);

/** The most specific shared folder of the files, or a single file's name. */
export function commitScope(files: string[]): string | undefined {
  if (files.length === 0) return undefined;
  const dirs = files.map((f) => f.split("/").slice(0, -1));
  const common: string[] = [];
  for (let i = 0; ; i++) {
    const part = dirs[0]?.[i];
    if (part === undefined || !dirs.every((d) => d[i] === part)) break;
    common.push(part);
  }
  const named = common.map(scopeWord).filter((p) => !GENERIC_DIRS.has(p));
  if (named.length > 0) return named[named.length - 1];
  if (files.length === 1) {
    const stem = scopeWord((files[0]?.split("/").pop() ?? "").replace(/(\.[^.]+)+$/, ""));
    if (stem && !["index", "mod", "init", "__init__"].includes(stem)) return stem;
  }
  return undefined;
}

function scopeWord(part: string): string {
  return part
    .toLowerCase()
    .replace(/^\.+/, "")
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 24);
}

const FILLER =
  /^(?:(?:now|okay|ok|great|perfect|alright|good|first|next|then|finally|also|so|and|done|here)\b[,!.:]?\s*|(?:let me|let's|lets|i'll|i will|i'm going to|i am going to|i need to|we need to|i'm|i am|i've|i have|we've|we have|i|we)\s+)/i;
const EXPLORING =
  /^(look|read|check|see|examine|explore|inspect|search|find|view|open|run|understand|start|verify|confirm|review|investigate|try)\b/i;
const PAST_TO_PRESENT: Record<string, string> = {
  made: "make",
  wrote: "write",
  rewrote: "rewrite",
  split: "split",
  set: "set",
  ran: "run",
  built: "build",
};

function stripFiller(sentence: string): string {
  let current = sentence.trim();
  for (let previous = ""; previous !== current; ) {
    previous = current;
    current = current.replace(FILLER, "").trim();
  }
  return current;
}

function chooseSentence(sentences: string[]): string | undefined {
  const stripped = sentences.map(stripFiller).filter((s) => /[a-z]/i.test(s));
  const changing = stripped.find((s) => isVerb(toPresent(firstWord(s))));
  const first = changing ?? stripped[0];
  if (!first || EXPLORING.test(first)) return undefined;
  return first;
}

function firstWord(sentence: string): string {
  return (sentence.split(/\s+/)[0] ?? "").toLowerCase().replace(/[^a-z]/g, "");
}

function toPresent(word: string): string {
  const known = PAST_TO_PRESENT[word];
  if (known) return known;
  for (const [suffix, replacement] of [
    ["ied", "y"],
    ["ies", "y"],
    ["ing", ""],
    ["ed", ""],
    ["es", ""],
    ["s", ""],
  ] as const) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, -suffix.length) + replacement;
    for (const candidate of [base, `${base}e`, base.replace(/(.)\1$/, "$1")]) {
      if (isVerb(candidate)) return candidate;
    }
  }
  return word;
}

const KNOWN_VERBS = new Set([
  "update",
  "change",
  "improve",
  "replace",
  "convert",
  "ensure",
  "make",
  "use",
  "return",
  "pass",
  "keep",
  "tweak",
  "adjust",
  "migrate",
  "format",
  "write",
  "bump",
  "reword",
  "validate",
  "export",
  "import",
  "parse",
  "document",
]);

function isVerb(word: string): boolean {
  return TYPE_BY_VERB[word] !== undefined || KNOWN_VERBS.has(word);
}

/** "Fixed the parser." -> "fix the parser" */
function imperative(sentence: string): string {
  const words = sentence.replace(/[.!?:;,\s]+$/, "").split(/\s+/);
  const head = words[0] ?? "";
  const present = toPresent(head.toLowerCase().replace(/[^a-z]/g, ""));
  if (isVerb(present)) words[0] = present;
  else if (!/^[A-Z0-9]{2,}/.test(head)) words[0] = head.charAt(0).toLowerCase() + head.slice(1);
  return words.join(" ");
}

function fallbackDescription(files: string[]): string {
  if (files.length === 1) return `update ${files[0]}`;
  const scope = commitScope(files);
  return scope ? `update ${files.length} files in ${scope}` : `update ${files.length} files`;
}

function assembleSubject(
  type: string,
  scope: string | undefined,
  description: string,
): { subject: string; complete: boolean } {
  const full = `${type}${scope ? `(${scope})` : ""}: ${description}`;
  if (full.length <= SUBJECT_MAX) return { subject: full, complete: true };
  const prefix = `${type}${scope ? `(${scope})` : ""}: `;
  const room = SUBJECT_MAX - prefix.length;
  if (scope && room < 30) return assembleSubject(type, undefined, description);
  return { subject: prefix + truncateWords(description, room), complete: false };
}

function truncateWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).replace(/[\s,;:.-]+$/, "");
}

/** Markdown to plain sentences: code blocks out, markup out, whitespace collapsed. */
function cleanProse(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, "")
    .replace(/(^|[\s(])(\*\*|__|\*|_)(\S[^*_]*?)\2(?=[\s).,!?:;]|$)/gm, "$1$3")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

function splitSentences(prose: string): string[] {
  return prose
    .split(/(?<=[.!?:])\s+(?=[A-Z`"'(])|\n+/)
    .map((s) => oneLine(s))
    .filter(Boolean);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

// Lines that git would read as trailers (attribution, sign-off, issue links)
// must come from us, never from text the model produced.
const TRAILER_LIKE = /^\s*(co-authored-by|signed-off-by|reviewed-by|refs?|fixes|closes|resolves):/i;

function bodyText(text: string): string {
  const kept = text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .filter((line) => !TRAILER_LIKE.test(line))
    .join("\n")
    .trim();
  if (!kept) return "";
  const limited = kept.length > BODY_MAX_CHARS ? `${truncateWords(kept, BODY_MAX_CHARS)} …` : kept;
  return wrapText(limited);
}

function fileList(files: string[]): string {
  const shown = files.slice(0, FILES_LISTED).map((f) => `- ${f}`);
  if (files.length > FILES_LISTED) shown.push(`- … and ${files.length - FILES_LISTED} more`);
  return ["Files:", ...shown].join("\n");
}

/** Wraps prose and list items at `width`; code blocks and indented lines stay as they are. */
export function wrapText(text: string, width = SUBJECT_MAX): string {
  const out: string[] = [];
  let inFence = false;
  let item: { indent: string; words: string[] } | null = null;
  const flush = () => {
    if (item) out.push(...wrapWords(item.words, width, item.indent));
    item = null;
  };
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) {
      flush();
      inFence = !inFence;
      out.push(line.trimEnd());
      continue;
    }
    if (inFence || /^( {4}|\t)/.test(line)) {
      flush();
      out.push(line.trimEnd());
      continue;
    }
    if (line.trim() === "") {
      flush();
      if (out.length > 0 && out[out.length - 1] !== "") out.push("");
      continue;
    }
    const marker = /^(\s*(?:[-*+]|\d+[.)])\s+)/.exec(line);
    if (marker || !item) {
      flush();
      const lead = marker?.[1] ?? "";
      item = {
        indent: " ".repeat(lead.length),
        words: [lead.trim(), ...line.slice(lead.length).split(/\s+/)],
      };
      item.words = item.words.filter(Boolean);
    } else {
      item.words.push(...line.trim().split(/\s+/));
    }
  }
  flush();
  while (out[out.length - 1] === "") out.pop();
  return out.join("\n");
}

function wrapWords(words: string[], width: number, indent: string): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (candidate.length > width - (lines.length > 0 ? indent.length : 0) && current) {
      lines.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current) lines.push(current);
  return lines.map((line, i) => (i > 0 ? indent + line : line));
}

function isDocFile(path: string): boolean {
  return (
    /\.(md|mdx|rst|adoc)$/i.test(path) || /^docs?\//i.test(path) || /(^|\/)LICENSE/i.test(path)
  );
}

function isTestFile(path: string): boolean {
  return (
    /(^|\/)(test|tests|spec|specs|__tests__)\//.test(path) ||
    /\.(test|spec)\.[a-z]+$/i.test(path) ||
    /_test\.(go|py)$/.test(path) ||
    /(^|\/)test_[^/]+\.py$/.test(path)
  );
}

const DEPS_FILES =
  /(^|\/)(package\.json|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|go\.mod|go\.sum|Cargo\.toml|Cargo\.lock|requirements[^/]*\.txt|poetry\.lock|pyproject\.toml|Gemfile|Gemfile\.lock|composer\.(json|lock))$/;

function isDepsOnly(files: string[]): boolean {
  return files.length > 0 && files.every((f) => DEPS_FILES.test(f));
}
