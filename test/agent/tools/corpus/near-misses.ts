import { type CorpusCase, edit, fails, grep, hides, read, shows, write } from "./case.js";
import { corsMiddleware, declarations, lfServer, longLog, minified, readme } from "./fixtures.js";

const MB = 1024 * 1024;

const nearMisses: CorpusCase[] = [
  {
    name: "one word off (var for const) shows the closest line and where it differs",
    category: "near misses",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      fails(
        edit(
          "server.js",
          "const port = process.env.PORT || 3000;",
          "const port = Number(process.env.PORT) || 3000;",
        ),
        "The closest text is at line 9:",
        "     9 | var port = process.env.PORT || 3000;",
        "differ at column 1: the file has `var` where old_string has `const`",
      ),
    ],
  },
  {
    name: "double quotes where the file has single quotes",
    category: "near misses",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          'res.setHeader("Vary", "Origin");',
          'res.setHeader("Vary", "Origin, Accept");',
        ),
        "line 14 would match it except for quote or dash characters",
        "line 14 has `'` where old_string has `\"`",
      ),
    ],
  },
  {
    name: "a straight apostrophe where the README has a curly one",
    category: "near misses",
    files: { "README.md": readme },
    calls: [
      read("README.md"),
      fails(
        edit(
          "README.md",
          "A tiny router that doesn't need a framework.",
          "A tiny router without a framework.",
        ),
        "line 3 would match it except for quote or dash characters",
        "a curly apostrophe U+2019",
      ),
    ],
  },
  {
    name: "a plain space where the README has a non-breaking space",
    category: "near misses",
    files: { "README.md": readme },
    calls: [
      read("README.md"),
      fails(
        edit("README.md", "with a path and a handler function.", "with a path and a handler."),
        "non-breaking",
        "line 13 has a non-breaking space U+00A0",
        "\\u00a0",
      ),
    ],
  },
  {
    name: "a composed é where the file stores it decomposed",
    category: "near misses",
    files: { "docs/cafe.md": "# Caf\u0065\u0301 menu\n\nThe caf\u0065\u0301 opens at 8.\n" },
    calls: [
      read("docs/cafe.md"),
      fails(
        edit("docs/cafe.md", "The caf\u00e9 opens at 8.", "The caf\u00e9 opens at 9."),
        "Unicode normalization",
        "line 3 stores accented letters decomposed (NFD",
      ),
    ],
  },
  {
    name: "old_string ends with a line break the file does not have",
    category: "near misses",
    files: { VERSION: "1.4.2" },
    calls: [
      read("VERSION"),
      fails(
        edit("VERSION", "1.4.2\n", "1.5.0\n"),
        "no final newline after line 1",
        "Drop the final line break",
      ),
    ],
  },
  {
    name: "a pasted truncation marker from a long line",
    category: "near misses",
    files: { "dist/bundle.js": minified },
    calls: [
      read("dist/bundle.js"),
      fails(
        edit(
          "dist/bundle.js",
          `${minified.slice(1980, 2000)}... [${minified.indexOf("\n") - 2000} more characters on this line]`,
          "x",
        ),
        "truncation marker",
        "part before it is on line 1",
        "sed -n '1p' dist/bundle.js",
      ),
    ],
  },
  {
    name: "an escaped \\n where the file has line breaks",
    category: "near misses",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "      res.statusCode = 204;\\n      return res.end();",
          "      return res.sendStatus(204);",
        ),
        "escaped \\n",
        "lines 18-19",
        "real line breaks",
      ),
    ],
  },
  {
    name: "a hyphen where the file has an em dash",
    category: "near misses",
    files: { "README.md": readme },
    calls: [
      read("README.md"),
      fails(
        edit(
          "README.md",
          "Routes are matched in order - the first match wins.",
          "Routes are matched in order.",
        ),
        "line 14",
        "an em dash U+2014",
      ),
    ],
  },
  {
    name: "an invisible zero-width space in the file",
    category: "near misses",
    files: { "src/names.ts": "export const title = 'Sign\u200Bup';\n" },
    calls: [
      read("src/names.ts"),
      fails(
        edit("src/names.ts", "export const title = 'Signup';", "export const title = 'Sign up';"),
        "a zero-width space U+200B",
        "line 1",
      ),
    ],
  },
  {
    name: "nothing similar: search elsewhere",
    category: "near misses",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit("lib/cors.js", "const limiter = rateLimit({ windowMs: 60000 });", "x"),
        "nothing in it resembles old_string",
        "grep_search",
        "read_file again",
      ),
    ],
  },
  {
    name: "a typo in an identifier",
    category: "near misses",
    files: { "types/index.d.ts": declarations },
    calls: [
      read("types/index.d.ts"),
      fails(
        edit(
          "types/index.d.ts",
          "export declare function createSever(options?: ServerOptions): Server;",
          "x",
        ),
        "The closest text is at line 12",
        "differ at column 33: the file has `r`, which old_string leaves out",
      ),
    ],
  },
  {
    name: "quotes and indentation both off",
    category: "near misses",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          '  if (req.method === "OPTIONS") {\n    res.setHeader("Access-Control-Max-Age", String(maxAge));',
          "x",
        ),
        "except for quote or dash characters and whitespace",
        "lines 16-17",
      ),
    ],
  },
  {
    name: "an empty file",
    category: "near misses",
    files: { "CHANGELOG.md": "" },
    calls: [
      read("CHANGELOG.md"),
      fails(edit("CHANGELOG.md", "# Changelog", "# Changes"), "the file is empty", "write_file"),
    ],
  },
  {
    name: "a line that moved: the closest region is where it is now",
    category: "near misses",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      fails(
        edit(
          "server.js",
          "app.get('/users', listUsers);\napp.get('/users/:id', getUser);\napp.get('/health', health);",
          "x",
        ),
        "lines 39-41",
        "line 41 of the file and line 3 of old_string",
      ),
    ],
  },
];

const largeFiles: CorpusCase[] = [
  {
    name: "a read stops at the output cap on a line boundary and says where to go on",
    category: "large files",
    files: { "logs/server.log": longLog },
    calls: [
      shows(
        hides(read("logs/server.log"), "characters cut"),
        /\[lines 1-\d+ of 3000 shown, stopped at the 50000-character output limit; call read_file with offset \d+ to read more\]$/,
      ),
    ],
  },
  {
    name: "the offset from the footer continues where the read stopped",
    category: "large files",
    files: { "logs/server.log": longLog },
    calls: [
      read("logs/server.log"),
      shows(
        read("logs/server.log", { offset: 2901 }),
        "  2901 | line 2901: request",
        "  3000 | line 3000: request",
      ),
    ],
  },
  {
    name: "a 21 MB file: read says how to get at it",
    category: "large files",
    sparse: { "data/dump.sql": 21 * MB },
    calls: [
      fails(
        read("data/dump.sql"),
        "too large to read whole",
        "21.0 MB",
        "read_file offset and limit",
        "grep_search",
        "sed -n",
      ),
    ],
  },
  {
    name: "a 21 MB file: edit says to use run_shell, not 'read it first'",
    category: "large files",
    sparse: { "data/dump.sql": 21 * MB },
    calls: [
      hides(
        fails(edit("data/dump.sql", "a", "b"), "too large for edit_file", "sed -i"),
        "has not been read",
      ),
    ],
  },
  {
    name: "a 21 MB file: write_file says how to replace it",
    category: "large files",
    sparse: { "data/dump.sql": 21 * MB },
    calls: [
      fails(write("data/dump.sql", "-- empty\n"), "rm data/dump.sql", "then call write_file"),
    ],
  },
  {
    name: "an edit near the end of a long file",
    category: "large files",
    files: { "logs/server.log": longLog },
    calls: [
      read("logs/server.log", { offset: 2990 }),
      edit(
        "logs/server.log",
        "line 2999: request handled in 88 ms ok",
        "line 2999: request handled in 88 ms FAILED",
      ),
    ],
    expect: {
      "logs/server.log": longLog.replace(
        "line 2999: request handled in 88 ms ok",
        "line 2999: request handled in 88 ms FAILED",
      ),
    },
  },
];

const longLines: CorpusCase[] = [
  {
    name: "a minified line is cut with a marker and a note on how to see the rest",
    category: "long lines",
    files: { "dist/bundle.js": minified },
    calls: [
      shows(
        read("dist/bundle.js"),
        /more characters on this line\]\n {5}2 \| module\.exports = a0;/,
        "line 1 is longer than 2000 characters",
        "leave it out of edit_file's old_string",
        "sed -n '1p' dist/bundle.js | cut -c2001-8000",
      ),
    ],
  },
  {
    name: "an edit inside the visible part of a long line",
    category: "long lines",
    files: { "dist/bundle.js": minified },
    calls: [
      read("dist/bundle.js"),
      edit("dist/bundle.js", "var a3=function(t){return t+3};", "var a3=function(t){return t+33};"),
    ],
    expect: { "dist/bundle.js": minified.replace("return t+3}", "return t+33}") },
  },
  {
    name: "grep on a long line cuts the line it shows",
    category: "long lines",
    files: { "dist/bundle.js": minified },
    calls: [shows(grep("a149=function"), /dist\/bundle\.js:1:var a0=.*\.\.\. \[line cut\]/)],
  },
  {
    name: "long lines count against the output cap too",
    category: "long lines",
    files: {
      "data/rows.csv": `${Array.from({ length: 40 }, (_, i) => `${i},${"x".repeat(2500)}`).join("\n")}\n`,
    },
    calls: [
      shows(
        read("data/rows.csv"),
        /\[lines 1-2\d of 40 shown, stopped at the 50000-character output limit; call read_file with offset 2\d/,
      ),
    ],
  },
  {
    name: "a marker copied from grep output is named as such",
    category: "long lines",
    files: { "dist/bundle.js": minified },
    calls: [
      read("dist/bundle.js"),
      fails(
        edit("dist/bundle.js", "var a0=function(t){return t+0};... [line cut]", "x"),
        "truncation marker",
      ),
    ],
  },
];

const unicode: CorpusCase[] = [
  {
    name: "a line with emoji",
    category: "unicode",
    files: {
      "src/messages.ts": "export const ok = '✅ done';\nexport const fail = '❌ failed';\n",
    },
    calls: [read("src/messages.ts"), edit("src/messages.ts", "'❌ failed'", "'⚠️ failed'")],
    expect: {
      "src/messages.ts": "export const ok = '✅ done';\nexport const fail = '⚠️ failed';\n",
    },
  },
  {
    name: "Japanese text in Markdown",
    category: "unicode",
    files: { "docs/ja.md": "# 使い方\n\nルーターを作成します。\n" },
    calls: [
      read("docs/ja.md"),
      edit("docs/ja.md", "ルーターを作成します。", "ルーターを作成して起動します。"),
    ],
    expect: { "docs/ja.md": "# 使い方\n\nルーターを作成して起動します。\n" },
  },
  {
    name: "decomposed text edited with decomposed text",
    category: "unicode",
    files: { "docs/cafe.md": "The caf\u0065\u0301 opens at 8.\n" },
    calls: [
      read("docs/cafe.md"),
      edit("docs/cafe.md", "caf\u0065\u0301 opens at 8", "caf\u0065\u0301 opens at 9"),
    ],
    expect: { "docs/cafe.md": "The caf\u0065\u0301 opens at 9.\n" },
  },
  {
    name: "write_file keeps multi-byte characters",
    category: "unicode",
    files: {},
    calls: [
      shows(
        write("i18n/de.json", '{ "greeting": "Grüße" }\n'),
        "Created i18n/de.json (1 lines, 26 bytes)",
      ),
    ],
    expect: { "i18n/de.json": '{ "greeting": "Grüße" }\n' },
  },
  {
    name: "grep finds a word with accents",
    category: "unicode",
    files: { "docs/fr.md": "Le café est prêt.\nRien ici.\n" },
    calls: [shows(grep("prêt"), "docs/fr.md:1:Le café est prêt.")],
  },
  {
    name: "right-to-left text",
    category: "unicode",
    files: { "i18n/he.txt": "שלום עולם\n" },
    calls: [read("i18n/he.txt"), edit("i18n/he.txt", "שלום", "להתראות")],
    expect: { "i18n/he.txt": "להתראות עולם\n" },
  },
];

export const nearMissCases: CorpusCase[] = [...nearMisses, ...largeFiles, ...longLines, ...unicode];
