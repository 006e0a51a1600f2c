import {
  type CorpusCase,
  crlf,
  edit,
  fails,
  grep,
  hides,
  list,
  read,
  shows,
  write,
} from "./case.js";
import { corsMiddleware, declarations, lfServer, packageJson } from "./fixtures.js";

const writeFile: CorpusCase[] = [
  {
    name: "a new file in new folders",
    category: "write_file",
    files: {},
    calls: [
      shows(
        write("lib/middleware/rate-limit.js", "module.exports = function () {};\n"),
        "Created lib/middleware/rate-limit.js (1 lines, 33 bytes)",
      ),
    ],
    expect: { "lib/middleware/rate-limit.js": "module.exports = function () {};\n" },
  },
  {
    name: "a full rewrite after a read",
    category: "write_file",
    files: { "package.json": packageJson },
    calls: [
      read("package.json"),
      shows(write("package.json", packageJson.replace("1.4.2", "1.5.0")), "Overwrote package.json"),
    ],
    expect: { "package.json": packageJson.replace("1.4.2", "1.5.0") },
  },
  {
    name: "a CRLF file rewritten with LF text keeps CRLF and says so",
    category: "write_file",
    files: { "scripts/build.cmd": crlf("@echo off\nnpm run build\n") },
    calls: [
      read("scripts/build.cmd"),
      shows(
        write("scripts/build.cmd", "@echo off\nnpm ci\nnpm run build\n"),
        "kept the file's CRLF line endings",
      ),
    ],
    expect: { "scripts/build.cmd": crlf("@echo off\nnpm ci\nnpm run build\n") },
  },
  {
    name: "a byte order mark is kept on a rewrite",
    category: "write_file",
    files: { "data/users.csv": "\uFEFFname\nada\n" },
    calls: [
      read("data/users.csv"),
      shows(write("data/users.csv", "name\nada\ngrace\n"), "byte order mark"),
    ],
    expect: { "data/users.csv": "\uFEFFname\nada\ngrace\n" },
  },
  {
    name: "a parent that is a file: said in workspace terms, no host path",
    category: "write_file",
    files: { lib: "not a folder\n" },
    calls: [
      hides(
        fails(
          write("lib/middleware/cors.js", corsMiddleware),
          "lib is a file, not a folder",
          "run_shell",
        ),
        "EEXIST",
        "mkdir",
      ),
    ],
  },
  {
    name: "a path ending in a slash names a folder",
    category: "write_file",
    files: {},
    calls: [fails(write("src/utils/", "x"), "ends with a slash", "src/utils/index.ts")],
  },
  {
    name: "the same content again writes nothing",
    category: "write_file",
    files: { "a.txt": "same\n" },
    calls: [read("a.txt"), shows(write("a.txt", "same\n"), "already has exactly this content")],
  },
  {
    name: "never into .git",
    category: "write_file",
    files: {},
    git: true,
    calls: [fails(write(".git/hooks/pre-commit", "#!/bin/sh\n"), "inside .git", "working tree")],
  },
  {
    name: "a folder given as the file",
    category: "write_file",
    files: { "src/index.ts": "export {};\n" },
    calls: [fails(write("src", "x"), "src is a directory", "src/index.ts")],
  },
];

const paths: CorpusCase[] = [
  {
    name: "write_file with backslashes is refused, not made into one odd file",
    category: "paths",
    files: {},
    calls: [
      fails(
        write("lib\\middleware\\cors.js", corsMiddleware),
        "contains backslashes",
        '"lib/middleware/cors.js"',
      ),
    ],
    expect: { "lib\\middleware\\cors.js": null },
  },
  {
    name: "read_file with backslashes",
    category: "paths",
    files: { "lib/cors.js": corsMiddleware },
    calls: [fails(read("lib\\cors.js"), "forward slashes", '"lib/cors.js"')],
  },
  {
    name: "edit_file with a Windows drive path",
    category: "paths",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      fails(
        edit("C:\\repo\\lib\\cors.js", "a", "b"),
        "Windows drive path",
        "relative to the workspace root",
      ),
    ],
  },
  {
    name: "a ~ path without a policy",
    category: "paths",
    files: {},
    calls: [
      fails(
        write("~/notes.md", "x"),
        'starts with "~"',
        "not expand",
        "relative to the workspace root",
      ),
    ],
    expect: { "~/notes.md": null },
  },
  {
    name: "a ~ path under the default preset",
    category: "paths",
    policy: "default",
    files: {},
    calls: [
      fails(
        write("~/notes.md", "x"),
        'starts with "~"',
        "not expand",
        "relative to the workspace root",
      ),
    ],
  },
  {
    name: "a ~ path under the read-only preset",
    category: "paths",
    policy: "read-only",
    files: {},
    calls: [fails(read("~/.bashrc"), 'starts with "~"', "outside the workspace")],
  },
  {
    name: "a ~ path under the trusted preset",
    category: "paths",
    policy: "trusted",
    files: {},
    calls: [fails(read("~/.ssh/config"), 'starts with "~"', "outside the workspace")],
  },
  {
    name: "backslashes under the default preset",
    category: "paths",
    policy: "default",
    files: {},
    calls: [fails(write("lib\\cors.js", "x"), "contains backslashes", '"lib/cors.js"')],
    expect: { "lib\\cors.js": null },
  },
  {
    name: "backslashes under the trusted preset",
    category: "paths",
    policy: "trusted",
    files: { "lib/cors.js": corsMiddleware },
    calls: [fails(read("lib\\cors.js"), "contains backslashes")],
  },
  {
    name: "backslashes under the read-only preset",
    category: "paths",
    policy: "read-only",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      fails(read("lib\\cors.js"), "contains backslashes"),
      // The path's own fix comes before the preset's "read-only" answer.
      fails(write("lib\\cors.js", "x"), "contains backslashes", '"lib/cors.js"'),
    ],
  },
  {
    name: "a path with a trailing space",
    category: "paths",
    files: {},
    calls: [fails(write("src/a.ts ", "x"), "ends with a space", 'Use "src/a.ts"')],
    expect: { "src/a.ts ": null },
  },
  {
    name: "a leading slash on a workspace path",
    category: "paths",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      fails(
        read("/lib/cors.js"),
        "outside the workspace",
        'for the workspace\'s own "lib/cors.js", leave out the leading "/"',
      ),
    ],
  },
  {
    name: "a .. escape",
    category: "paths",
    files: {},
    calls: [fails(read("../../etc/passwd"), "outside the workspace", "relative to its root")],
  },
  {
    name: "a symlink out of the workspace does not show where it points",
    category: "paths",
    files: {},
    links: { vendor: "/usr" },
    calls: [
      hides(
        fails(
          read("vendor/share/dict/words"),
          "goes through a symlink that points outside the workspace",
        ),
        "/usr",
      ),
    ],
  },
  {
    name: "an absolute path inside the workspace works",
    category: "paths",
    files: { "lib/cors.js": corsMiddleware },
    calls: [read("$ROOT/lib/cors.js"), edit("$ROOT/lib/cors.js", "|| 600;", "|| 60;")],
    expect: { "lib/cors.js": corsMiddleware.replace("|| 600;", "|| 60;") },
  },
  {
    name: "an absolute path to a missing file is reported relative",
    category: "paths",
    files: {},
    calls: [
      fails(edit("$ROOT/lib/missing.js", "a", "b"), "lib/missing.js does not exist", "write_file"),
    ],
  },
  {
    name: "list_files with a backslash path",
    category: "paths",
    files: { "lib/cors.js": corsMiddleware },
    calls: [fails(list("*.js", { path: "lib\\" }), "contains backslashes")],
  },
];

const numbered = `${Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join("\n")}\n`;

const reads: CorpusCase[] = [
  {
    name: "offset and limit with a footer that says how to continue",
    category: "read offsets and limits",
    files: { "rows.txt": numbered },
    calls: [
      {
        ...read("rows.txt", { offset: 10, limit: 3 }),
        exactly:
          "    10 | row 10\n    11 | row 11\n    12 | row 12\n[lines 10-12 of 50 shown; call read_file with offset 13 to read more]",
      },
    ],
  },
  {
    name: "an offset past the end gives the valid range",
    category: "read offsets and limits",
    files: { "rows.txt": numbered },
    calls: [
      fails(
        read("rows.txt", { offset: 51 }),
        "past the end of rows.txt, which has 50 lines",
        "offset from 1 to 50",
      ),
    ],
  },
  {
    name: "a limit past the end reads to the end without a footer",
    category: "read offsets and limits",
    files: { "rows.txt": numbered },
    calls: [
      {
        ...read("rows.txt", { offset: 49, limit: 100 }),
        exactly: "    49 | row 49\n    50 | row 50",
      },
    ],
  },
  {
    name: "2000 lines by default",
    category: "read offsets and limits",
    files: { "ids.txt": `${Array.from({ length: 2100 }, (_, i) => `${i + 1}`).join("\n")}\n` },
    calls: [
      shows(
        read("ids.txt"),
        "  2000 | 2000\n[lines 1-2000 of 2100 shown; call read_file with offset 2001 to read more]",
      ),
    ],
  },
  {
    name: "an empty file is said to be empty",
    category: "read offsets and limits",
    files: { "empty.txt": "" },
    calls: [{ ...read("empty.txt"), exactly: "empty.txt is empty (0 lines)." }],
  },
  {
    name: "CRLF is not shown",
    category: "read offsets and limits",
    files: { "win.txt": crlf("alpha\nbeta\n") },
    calls: [{ ...read("win.txt"), exactly: "     1 | alpha\n     2 | beta" }],
  },
  {
    name: "the last line alone",
    category: "read offsets and limits",
    files: { "types/index.d.ts": declarations },
    calls: [
      {
        ...read("types/index.d.ts", { offset: 20 }),
        exactly: `    20 | ${declarations.split("\n")[19]}`,
      },
    ],
  },
  {
    name: "a folder given to read_file",
    category: "read offsets and limits",
    files: { "lib/cors.js": corsMiddleware },
    calls: [fails(read("lib"), "lib is a directory", 'list_files with path "lib"')],
  },
  {
    name: "a missing file",
    category: "read offsets and limits",
    files: {},
    calls: [fails(read("src/app.ts"), "does not exist", "list_files")],
  },
  {
    name: "a file without a final newline shows its last line",
    category: "read offsets and limits",
    files: { VERSION: "1.4.2" },
    calls: [{ ...read("VERSION"), exactly: "     1 | 1.4.2" }],
  },
];

const requires = `var express = require('express');
const { join }=require("path");
let   cors	= require('./lib/cors');
import fs from 'node:fs';
var config = loadConfig();
module.exports = require('./app');
`;

const greps: CorpusCase[] = [
  {
    name: "[\\s=] inside brackets means whitespace or =",
    category: "grep patterns",
    git: true,
    files: { "server.js": requires },
    calls: [
      {
        ...grep("[\\s=]+require\\("),
        exactly:
          "server.js:1:var express = require('express');\nserver.js:2:const { join }=require(\"path\");\nserver.js:3:let   cors\t= require('./lib/cors');\nserver.js:6:module.exports = require('./app');",
      },
    ],
  },
  {
    name: "the same search outside a git repository",
    category: "grep patterns",
    files: { "server.js": requires },
    calls: [
      shows(
        grep("[\\s=]+require\\("),
        "server.js:2:const { join }=require",
        "server.js:3:let   cors\t= require",
      ),
    ],
  },
  {
    name: "\\t matches a tab",
    category: "grep patterns",
    git: true,
    files: { "server.js": requires },
    calls: [{ ...grep("cors\\t="), exactly: "server.js:3:let   cors\t= require('./lib/cors');" }],
  },
  {
    name: "\\w+ and \\d{3} work",
    category: "grep patterns",
    git: true,
    files: {
      "lib/errors.js":
        "class NotFoundError extends Error {}\nconst CODE = 404;\nconst other = 42;\n",
    },
    calls: [
      { ...grep("\\w+Error\\b"), exactly: "lib/errors.js:1:class NotFoundError extends Error {}" },
      { ...grep("\\b\\d{3}\\b"), exactly: "lib/errors.js:2:const CODE = 404;" },
    ],
  },
  {
    name: "code pasted as a pattern: its parentheses are groups, so the plain-text hits are shown",
    category: "grep patterns",
    git: true,
    files: { "server.js": lfServer },
    calls: [
      shows(
        grep("function getUser(req, res, next) {", { include: "*.js" }),
        "No matches for /function getUser(req, res, next) {/ as a regular expression",
        "As plain text it is found here",
        "server.js:14:function getUser(req, res, next) {",
      ),
    ],
  },
  {
    name: "(?i) searches without case",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "// TODO: fix\n// todo: later\n// Done\n" },
    calls: [{ ...grep("(?i)todo"), exactly: "src/a.ts:1:// TODO: fix\nsrc/a.ts:2:// todo: later" }],
  },
  {
    name: "$ finds line ends in a CRLF file",
    category: "grep patterns",
    git: true,
    files: { "win.js": crlf("a();\nb()\nc();\n") },
    calls: [{ ...grep(";$"), exactly: "win.js:1:a();\nwin.js:3:c();" }],
  },
  {
    name: "lookbehind finds what follows require(",
    category: "grep patterns",
    git: true,
    files: { "server.js": requires },
    calls: [
      {
        ...grep("(?<=require\\()'[^']+'"),
        exactly:
          "server.js:1:var express = require('express');\nserver.js:3:let   cors\t= require('./lib/cors');\nserver.js:6:module.exports = require('./app');",
      },
    ],
  },
  {
    name: "a negated class inside [^...] means what JavaScript says",
    category: "grep patterns",
    git: true,
    files: { "a.js": "a\tb\nc d\n" },
    // [^\S\t]: whitespace other than a tab.
    calls: [{ ...grep("[^\\S\\t]"), exactly: "a.js:2:c d" }],
  },
  {
    name: "\\n is refused: search is line by line",
    category: "grep patterns",
    git: true,
    files: { "a.js": "x\n" },
    calls: [fails(grep("\\}\\n\\s*else"), "one line at a time", "run_shell")],
  },
  {
    name: "a Windows-style include is refused",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "x\n" },
    calls: [fails(grep("x", { include: "src\\*.ts" }), "include", "forward slashes")],
  },
  {
    name: "include with braces",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "answer\n", "src/b.js": "answer\n", "src/c.md": "answer\n" },
    calls: [
      {
        ...grep("answer", { include: "*.{ts,js}" }),
        exactly: "src/a.ts:1:answer\nsrc/b.js:1:answer",
      },
    ],
  },
  {
    name: "code pasted as a pattern outside a git repository",
    category: "grep patterns",
    files: { "server.js": lfServer },
    calls: [
      shows(
        grep("app.get('/users/:id', getUser);"),
        "as a regular expression",
        "server.js:40:app.get('/users/:id', getUser);",
      ),
    ],
  },
  {
    name: "an escaped brace and dot work as written",
    category: "grep patterns",
    git: true,
    files: { "server.js": lfServer },
    calls: [
      {
        ...grep("^app\\.listen\\(port, function \\(\\) \\{$"),
        exactly: "server.js:43:app.listen(port, function () {",
      },
    ],
  },
  {
    name: "\\d and \\s outside a git repository",
    category: "grep patterns",
    files: { "lib/errors.js": "const CODE = 404;\nconst other=42;\n" },
    calls: [{ ...grep("=\\s\\d{3}"), exactly: "lib/errors.js:1:const CODE = 404;" }],
  },
  {
    name: "grep-style \\| alternation is read as 'or' when the literal finds nothing",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "// TODO: one\n// FIXME: two\nconst x = 1;\n" },
    calls: [
      shows(
        grep("TODO\\|FIXME"),
        'where \\| is a literal "|". With | as "or" (/TODO|FIXME/) it matches:',
        "src/a.ts:1:// TODO: one\nsrc/a.ts:2:// FIXME: two",
      ),
    ],
  },
  {
    name: "a pattern written between slashes, with a flag",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "// todo: one\nconst x = 1;\n" },
    calls: [
      shows(grep("/TODO/i"), "the slashes are part of that pattern", "src/a.ts:1:// todo: one"),
    ],
  },
  {
    name: "an include listing globs with commas",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "answer\n", "src/b.tsx": "answer\n", "src/c.md": "answer\n" },
    calls: [
      {
        ...grep("answer", { include: "*.ts, *.tsx" }),
        exactly: "src/a.ts:1:answer\nsrc/b.tsx:1:answer",
      },
    ],
  },
  {
    name: "an include that repeats path says so when nothing matches",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "answer\n" },
    calls: [
      shows(
        grep("answer", { path: "src", include: "src/*.ts" }),
        'include is matched below path "src": drop the "src/"',
      ),
    ],
  },
  {
    name: "an include starting with ~",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "x\n" },
    calls: [fails(grep("x", { include: "~/src/*.ts" }), "include", "not expanded")],
  },
  {
    name: "no match is a plain result",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "answer\n" },
    calls: [{ ...grep("question", { path: "src" }), exactly: "No matches for /question/ in src." }],
  },
  {
    name: "a path that does not exist",
    category: "grep patterns",
    git: true,
    files: { "src/a.ts": "answer\n" },
    calls: [fails(grep("answer", { path: "source" }), "source does not exist", "list_files")],
  },
];

const lists: CorpusCase[] = [
  {
    name: "all TypeScript files",
    category: "list patterns",
    git: true,
    files: { "src/a.ts": "", "src/b/c.ts": "", "README.md": "" },
    calls: [{ ...list("**/*.ts"), exactly: "src/a.ts\nsrc/b/c.ts" }],
  },
  {
    name: "a folder name as the pattern",
    category: "list patterns",
    git: true,
    files: { "src/a.ts": "", "src/b/c.ts": "" },
    calls: [shows(list("src/b"), '"src/b" is a folder', 'pattern "src/b/**"')],
  },
  {
    name: "the path repeated in the pattern",
    category: "list patterns",
    git: true,
    files: { "src/a.ts": "", "src/b/c.ts": "" },
    calls: [
      shows(list("src/**/*.ts", { path: "src" }), 'relative to path "src"', 'drop the "src/"'),
    ],
  },
  {
    name: "a case mismatch",
    category: "list patterns",
    git: true,
    files: { "README.md": "", "docs/guide.md": "" },
    calls: [shows(list("readme.md"), "1 file matches if case is ignored (e.g. README.md)")],
  },
  {
    name: "a Windows-style pattern",
    category: "list patterns",
    git: true,
    files: { "src/a.ts": "" },
    calls: [fails(list("src\\a.ts"), "backslashes", '"src/a.ts"')],
  },
  {
    name: "a path that is a file",
    category: "list patterns",
    git: true,
    files: { "src/a.ts": "" },
    calls: [fails(list("*", { path: "src/a.ts" }), "is a file, not a folder", "read_file")],
  },
  {
    name: "a list pattern starting with ~",
    category: "list patterns",
    git: true,
    files: { "src/a.ts": "" },
    calls: [fails(list("~/projects/**/*.ts"), 'starts with "~"', "src/**/*.ts")],
  },
  {
    name: "a list pattern listing globs with commas",
    category: "list patterns",
    git: true,
    files: { "a.json": "", "b.yml": "", "c.md": "" },
    calls: [{ ...list("*.json, *.md"), exactly: "a.json\nc.md" }],
  },
  {
    name: "braces in a list pattern",
    category: "list patterns",
    git: true,
    files: { "a.json": "", "b.yml": "", "c.md": "", "deep/d.yml": "" },
    calls: [{ ...list("*.{json,yml}"), exactly: "a.json\nb.yml\ndeep/d.yml" }],
  },
  {
    name: "a pattern ending in a slash",
    category: "list patterns",
    git: true,
    files: { "lib/cors.js": corsMiddleware },
    calls: [shows(list("lib/"), '"lib" is a folder')],
  },
];

export const fileAndSearchCases: CorpusCase[] = [
  ...writeFile,
  ...paths,
  ...reads,
  ...greps,
  ...lists,
];
