import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Language, Parser, type Tree } from "web-tree-sitter";

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
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}
