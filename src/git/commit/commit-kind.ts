/**
 * The Conventional Commit type and scope of a change, from the leading verb
 * of its description and the paths it touches. Pure.
 */

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

export function isVerb(word: string): boolean {
  return TYPE_BY_VERB[word] !== undefined || KNOWN_VERBS.has(word);
}

const PAST_TO_PRESENT: Record<string, string> = {
  made: "make",
  wrote: "write",
  rewrote: "rewrite",
  split: "split",
  set: "set",
  ran: "run",
  built: "build",
};

/** "fixed" -> "fix", "adds" -> "add"; unknown words come back unchanged. */
export function toPresent(word: string): string {
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

export function isDepsOnly(files: string[]): boolean {
  return files.length > 0 && files.every((f) => DEPS_FILES.test(f));
}
