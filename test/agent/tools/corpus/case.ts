/**
 * The corpus is data: each case is a workspace, a sequence of tool calls as
 * a model would make them, and what must come of it. The runner
 * (../corpus.test.ts) replays them through the real tool registry.
 */
export const CATEGORIES = [
  "exact",
  "replace_all",
  "multi-line",
  "anchors",
  "prefixes",
  "whitespace drift",
  "line endings and encodings",
  "ambiguous",
  "stale",
  "unread",
  "degenerate arguments",
  "near misses",
  "large files",
  "long lines",
  "unicode",
  "write_file",
  "paths",
  "read offsets and limits",
  "grep patterns",
  "list patterns",
  "stale after run_shell",
  "quotes and indentation",
  "regex dialect",
  "next steps",
] as const;

export type Category = (typeof CATEGORIES)[number];

type Expectation = string | RegExp;

export type Call =
  | {
      tool: "read_file" | "write_file" | "edit_file" | "list_files" | "grep_search" | string;
      /** "$ROOT" in a string is replaced by the workspace's real path. */
      input: Record<string, unknown>;
      /** The call must fail and its message contain each of these. */
      error?: Expectation[];
      /** The call must succeed and its output contain each of these. */
      output?: Expectation[];
      /** The result must contain none of these. */
      absent?: Expectation[];
      /** The whole output, exactly (for listings and reads). */
      exactly?: string;
    }
  | {
      /** Another process changes a file between calls (a person, a formatter). */
      tool: "external-change";
      path: string;
      content: string;
    };

export interface CorpusCase {
  name: string;
  category: Category;
  files?: Record<string, string | Buffer>;
  /** Files larger than a test should write: path -> size in bytes of a sparse text file. */
  sparse?: Record<string, number>;
  /** Symbolic links: path -> target ("$ROOT" allowed). */
  links?: Record<string, string>;
  /** Commit the files to a git repository first (grep and list read git's view). */
  git?: boolean;
  /** Run under the real policy with this preset; without it every call is allowed. */
  policy?: "read-only" | "default" | "trusted";
  calls: Call[];
  /**
   * Final contents that differ from the initial files; null means "must not
   * exist". Every other initial file must be unchanged and no other file made.
   */
  expect?: Record<string, string | Buffer | null>;
}

type CallOptions = Record<string, unknown>;

export const read = (file_path: string, options: CallOptions = {}): Call => ({
  tool: "read_file",
  input: { file_path, ...options },
});

export const write = (file_path: string, content: string): Call => ({
  tool: "write_file",
  input: { file_path, content },
});

export const edit = (
  file_path: string,
  old_string: string,
  new_string: string,
  options: CallOptions = {},
): Call => ({ tool: "edit_file", input: { file_path, old_string, new_string, ...options } });

export const grep = (pattern: string, options: CallOptions = {}): Call => ({
  tool: "grep_search",
  input: { pattern, ...options },
});

export const list = (pattern: string, options: CallOptions = {}): Call => ({
  tool: "list_files",
  input: { pattern, ...options },
});

export const shell = (command: string): Call => ({ tool: "run_shell", input: { command } });

export const external = (path: string, content: string): Call => ({
  tool: "external-change",
  path,
  content,
});

/** The call must fail, with these words of guidance in its message. */
export function fails(call: Call, ...error: Expectation[]): Call {
  return { ...call, error } as Call;
}

/** The call must succeed, with these in its output. */
export function shows(call: Call, ...output: Expectation[]): Call {
  return { ...call, output } as Call;
}

/** The call's output (or error) must not contain these. */
export function hides(call: Call, ...absent: Expectation[]): Call {
  return { ...call, absent } as Call;
}

/** A file's text with CRLF line endings (fixtures are written with LF). */
export const crlf = (text: string): string => text.replace(/\r?\n/g, "\r\n");

/** Lines as read_file shows them (`    12 | text`), starting at line `first`. */
export function asShown(text: string, first: number): string {
  return text
    .split("\n")
    .map((line, i) => `${String(first + i).padStart(6)} | ${line}`)
    .join("\n");
}
