import { type CorpusCase, edit, external, fails, read, shows, write } from "./case.js";
import { corsMiddleware, declarations, lfServer, workflow } from "./fixtures.js";

const ambiguous: CorpusCase[] = [
  {
    name: "three copies: the lines are listed with both ways out",
    category: "ambiguous",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      fails(
        edit("server.js", "    res.send(result);", "    res.json(result);"),
        "found 3 matches of old_string in server.js (at lines 17, 24, 31)",
        "add surrounding lines",
        "replace_all to true",
      ),
    ],
  },
  {
    name: "after an ambiguity, more context makes it unique",
    category: "ambiguous",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      fails(edit("server.js", "    res.send(result);", "    res.json(result);"), "found 3 matches"),
      edit(
        "server.js",
        "  store.all(function (err, result) {\n    if (err) return next(err);\n    res.send(result);",
        "  store.all(function (err, result) {\n    if (err) return next(err);\n    res.json(result);",
      ),
    ],
    expect: {
      "server.js": lfServer.replace(
        "  store.all(function (err, result) {\n    if (err) return next(err);\n    res.send(result);",
        "  store.all(function (err, result) {\n    if (err) return next(err);\n    res.json(result);",
      ),
    },
  },
  {
    name: "overlapping copies count as ambiguous",
    category: "ambiguous",
    files: { "banner.txt": "=====\n" },
    calls: [
      read("banner.txt"),
      fails(edit("banner.txt", "====", "----"), "found 2 matches", "at lines 1, 1"),
    ],
  },
  {
    name: "more than ten copies are listed in part",
    category: "ambiguous",
    files: { "list.txt": `${Array.from({ length: 14 }, () => "item").join("\n")}\n` },
    calls: [
      read("list.txt"),
      fails(
        edit("list.txt", "item", "entry"),
        "found 14 matches",
        "at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)",
      ),
    ],
  },
  {
    name: "a YAML key that every job has",
    category: "ambiguous",
    files: { ".github/workflows/ci.yml": workflow },
    calls: [
      read(".github/workflows/ci.yml"),
      fails(
        edit(
          ".github/workflows/ci.yml",
          "      - run: npm ci",
          "      - run: npm ci --ignore-scripts",
        ),
        "found 2 matches",
        "lines 19, 26",
      ),
    ],
  },
  {
    name: "the same text with different indentation is two places, not one",
    category: "ambiguous",
    files: { "a.ts": "if (a) {\n  done();\n}\nfunction f() {\n    done();\n}\n" },
    calls: [
      read("a.ts"),
      fails(edit("a.ts", "done();", "finish();"), "found 2 matches", "lines 2, 5"),
    ],
  },
];

const stale: CorpusCase[] = [
  {
    name: "a blank line added after a line that already has one is not taken for a repeat",
    category: "stale",
    files: { "a.js": "import a from 'a';\nimport b from 'b';\n\nrun();\n" },
    calls: [read("a.js"), edit("a.js", "import b from 'b';\n", "import b from 'b';\n\n")],
    expect: { "a.js": "import a from 'a';\nimport b from 'b';\n\n\nrun();\n" },
  },
  {
    name: "a file changed by someone else since the read",
    category: "stale",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      external("lib/cors.js", corsMiddleware.replace("600", "1200")),
      fails(
        edit("lib/cors.js", "|| 1200;", "|| 60;"),
        "changed on disk since you last read it",
        "call read_file again",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("600", "1200") },
  },
  {
    name: "after the outside change, a new read lets the edit through",
    category: "stale",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      external("lib/cors.js", corsMiddleware.replace("600", "1200")),
      fails(edit("lib/cors.js", "|| 1200;", "|| 60;"), "changed on disk"),
      read("lib/cors.js"),
      edit("lib/cors.js", "|| 1200;", "|| 60;"),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("600", "60") },
  },
  {
    name: "the same edit sent twice: the second says it is already there",
    category: "stale",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit("lib/cors.js", "res.statusCode = 204;", "res.statusCode = 204; // no content"),
      fails(
        edit("lib/cors.js", "res.statusCode = 204;", "res.statusCode = 204; // no content"),
        "matches at line 18 only as part of new_string",
        "Call read_file to check",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("= 204;", "= 204; // no content") },
  },
  {
    name: "old_string from before the model's own earlier edit",
    category: "stale",
    files: { "types/index.d.ts": declarations },
    calls: [
      read("types/index.d.ts"),
      edit("types/index.d.ts", "  host?: string;", "  hostname?: string;"),
      fails(
        edit(
          "types/index.d.ts",
          "  port?: number;\n  host?: string;",
          "  port?: number;\n  host?: string | null;",
        ),
        "lines 6-7",
        "hostname",
      ),
    ],
    expect: {
      "types/index.d.ts": declarations.replace("  host?: string;", "  hostname?: string;"),
    },
  },
  {
    name: "write_file over a file changed since the read",
    category: "stale",
    files: { "config.json": '{ "a": 1 }\n' },
    calls: [
      read("config.json"),
      external("config.json", '{ "a": 2 }\n'),
      fails(write("config.json", '{ "a": 3 }\n'), "changed on disk", "read_file again"),
    ],
    expect: { "config.json": '{ "a": 2 }\n' },
  },
  {
    name: "a file the model wrote itself can be edited without a read",
    category: "stale",
    files: {},
    calls: [
      write("src/version.ts", "export const version = '1.0.0';\n"),
      edit("src/version.ts", "'1.0.0'", "'1.1.0'"),
    ],
    expect: { "src/version.ts": "export const version = '1.1.0';\n" },
  },
  {
    name: "a deletion already made: new_string is reported present",
    category: "stale",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit("lib/cors.js", "      res.setHeader('Vary', 'Origin');\n    }\n", "    }\n"),
      fails(
        edit(
          "lib/cors.js",
          "      res.setHeader('Access-Control-Allow-Origin', origin);\n      res.setHeader('Vary', 'Origin');\n    }",
          "      res.setHeader('Access-Control-Allow-Origin', origin);\n    }",
        ),
        "new_string is already in the file at line 13",
        "may have been made already",
      ),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace("      res.setHeader('Vary', 'Origin');\n", ""),
    },
  },
];

const unread: CorpusCase[] = [
  {
    name: "edit before any read",
    category: "unread",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      fails(
        edit("lib/cors.js", "|| 600;", "|| 60;"),
        "has not been read yet",
        "call read_file on it first",
      ),
    ],
  },
  {
    name: "write_file over an existing file before a read",
    category: "unread",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      fails(write("lib/cors.js", "module.exports = null;\n"), "has not been read yet", "read_file"),
    ],
  },
  {
    name: "write_file of a new file needs no read",
    category: "unread",
    files: {},
    calls: [
      shows(
        write("lib/rate-limit.js", "module.exports = {};\n"),
        "Created lib/rate-limit.js (1 lines",
      ),
    ],
    expect: { "lib/rate-limit.js": "module.exports = {};\n" },
  },
  {
    name: "reading one file does not unlock another",
    category: "unread",
    files: { "lib/cors.js": corsMiddleware, "server.js": lfServer },
    calls: [
      read("server.js"),
      fails(edit("lib/cors.js", "|| 600;", "|| 60;"), "lib/cors.js has not been read yet"),
    ],
  },
  {
    name: "a partial read (offset and limit) is a read",
    category: "unread",
    files: { "lib/cors.js": corsMiddleware },
    calls: [read("lib/cors.js", { offset: 6, limit: 3 }), edit("lib/cors.js", "|| 600;", "|| 60;")],
    expect: { "lib/cors.js": corsMiddleware.replace("|| 600;", "|| 60;") },
  },
];

const degenerate: CorpusCase[] = [
  {
    name: "an empty old_string",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [read("a.txt"), fails(edit("a.txt", "", "y"), "old_string is empty", "write_file")],
  },
  {
    name: "identical old_string and new_string",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [read("a.txt"), fails(edit("a.txt", "x", "x"), "identical", "new_string")],
  },
  {
    name: "a missing new_string field",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [
      read("a.txt"),
      fails(
        { tool: "edit_file", input: { file_path: "a.txt", old_string: "x" } },
        "Invalid input for edit_file",
        "new_string",
        "edit_file takes: file_path (string), old_string (string), new_string (string), replace_all (boolean, optional).",
      ),
    ],
  },
  {
    name: "field names from another tool set",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [
      read("a.txt"),
      fails(
        { tool: "edit_file", input: { path: "a.txt", old_str: "x", new_str: "y" } },
        "edit_file takes: file_path (string), old_string (string)",
      ),
    ],
  },
  {
    name: "an empty file_path",
    category: "degenerate arguments",
    files: {},
    calls: [fails(read(""), "path is empty", "relative to the workspace root")],
  },
  {
    name: "edit_file on a folder",
    category: "degenerate arguments",
    files: { "lib/cors.js": corsMiddleware },
    calls: [fails(edit("lib", "a", "b"), "lib is a directory", 'list_files with path "lib"')],
  },
  {
    name: "edit_file on a file that does not exist",
    category: "degenerate arguments",
    files: {},
    calls: [
      fails(
        edit("lib/missing.js", "a", "b"),
        "does not exist",
        "create the file with write_file",
        "list_files",
      ),
    ],
  },
  {
    name: "read_file with offset 0",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [
      fails(
        read("a.txt", { offset: 0 }),
        "Invalid input for read_file",
        "offset",
        "read_file takes: file_path (string), offset (integer, optional)",
      ),
    ],
  },
  {
    name: "replace_all given as a string",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [
      read("a.txt"),
      fails(edit("a.txt", "x", "y", { replace_all: "true" }), "replace_all", "boolean, optional"),
    ],
  },
  {
    name: "an unknown tool name",
    category: "degenerate arguments",
    files: {},
    calls: [
      fails(
        { tool: "str_replace_editor", input: { command: "view" } },
        "Unknown tool",
        "read_file, write_file, edit_file",
      ),
    ],
  },
  {
    name: "old_string that is only a line-number prefix",
    category: "degenerate arguments",
    files: { "a.txt": "x\n" },
    calls: [
      read("a.txt"),
      fails(
        edit("a.txt", "     1 | ", "     1 | y"),
        "nothing but read_file's line-number prefixes",
        "copy the text",
      ),
    ],
  },
];

export const guardedEdits: CorpusCase[] = [...ambiguous, ...stale, ...unread, ...degenerate];
