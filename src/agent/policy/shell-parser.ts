import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import type { Language, Tree } from "web-tree-sitter";

/** What the shell analysis needs from a parser: bash source in, syntax tree out. */
export interface ShellParser {
  parse(text: string): Tree | null;
}

/*
 * The bash grammar is immutable wasm data, so memoising its load for the
 * process is a cache of a pure value rather than shared mutable state; the
 * parsers built on it (which do hold per-parse state) are created per caller.
 */
let bashLanguage: Promise<Language> | undefined;

function loadBashLanguage(): Promise<Language> {
  bashLanguage ??= (async () => {
    // V8 compiles wasm with its baseline compiler (Liftoff), then compiles
    // the grammar's hot functions again with TurboFan in the background, and
    // a process waits for that work before it exits: on Node 24, 0.45 s of
    // CPU and a peak of ~585 MB (against 80 MB) for a parser that reads a
    // few short commands; Liftoff alone is fast enough for that. Set at run
    // time, `--liftoff-only` stops it on Node 20 but not on 24 (its implied
    // flags are applied at start-up only); these two stop it on both. They
    // only matter for wasm, and this is the process's only wasm. Any flag
    // set here also makes V8 refuse the code cache Node ships for its own
    // modules, so a built-in first loaded after this compiles from source
    // (undici: ~25 ms more); the Action has loaded what it needs by then.
    setFlagsFromString("--no-wasm-tier-up --no-wasm-dynamic-tiering");
    // Loaded with the grammar, beside the first model request: not on the way to it.
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    return Language.load(bashGrammarPath());
  })().catch((error: unknown) => {
    // A failed load (missing file, bad wasm) must not poison later attempts.
    bashLanguage = undefined;
    throw error;
  });
  return bashLanguage;
}

/**
 * Next to this module when it ships as a bundle (the Action's dist/, which
 * has no node_modules), otherwise from the tree-sitter-bash package.
 */
function bashGrammarPath(): string {
  const bundled = fileURLToPath(new URL("tree-sitter-bash.wasm", import.meta.url));
  if (existsSync(bundled)) return bundled;
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** A bash parser (tree-sitter-bash); after this resolves, parsing is synchronous. */
export async function loadShellParser(): Promise<ShellParser> {
  const language = await loadBashLanguage();
  const { Parser } = await import("web-tree-sitter");
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}
