import type { Redirect, ShellWord } from "./shell-words.js";

/** One command the shell would run, with its words as the program receives them. */
export interface SimpleCommand {
  /** Words with quotes removed; a dynamic word keeps its source text (`$HOME`). */
  argv: string[];
  /** Parallel to argv: true where the word expands at run time. */
  dynamic: boolean[];
  /** `NAME=value` prefixes (and names a wrapper like env sets). */
  assignments: string[];
  redirects: Redirect[];
  /** argv joined with single spaces: what `run_shell:` rules match. */
  text: string;
  /** The wrapper this command runs inside (`xargs`, `find -exec`, `bash -c`), or null. */
  via: string | null;
  /** xargs appends arguments read from standard input. */
  argsFromInput: boolean;
}

/**
 * A construct that hides what runs. `opaque` ones hide it even from the
 * trusted preset's own limits (no push, no writes into .git/): a program,
 * git subcommand or git configuration the policy cannot read.
 */
export interface Hazard {
  sentence: string;
  opaque: boolean;
}

export interface CommandAnalysis {
  commands: SimpleCommand[];
  /** Sentences naming constructs that hide what runs; includes parse failures. */
  hazards: string[];
  /**
   * The hazards that hide which program or shell code runs (a command name
   * or `sh -c` program from an expansion, nesting too deep to follow). Even
   * the trusted preset denies these: without seeing what runs it cannot keep
   * its own limits.
   */
  opaque: string[];
  /**
   * Unquoted patterns the shell expands into file names (arguments, for
   * lists, array elements), and patterns stored in a variable (`x=/etc/*`)
   * that expand wherever it is used unquoted.
   */
  patterns: ShellWord[];
  /** Set when the text is not valid bash (as far as the grammar knows). */
  parseError: string | null;
}
