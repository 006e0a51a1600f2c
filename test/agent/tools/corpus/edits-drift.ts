import { asShown, type CorpusCase, crlf, edit, fails, hides, read, shows, write } from "./case.js";
import {
  corsMiddleware,
  latin1Text,
  mixedServer,
  pngHeader,
  readme,
  utf16Text,
  workflow,
} from "./fixtures.js";

const corsLines = corsMiddleware.split("\n");
/** Lines 16-20 of the middleware, the OPTIONS branch. */
const optionsBlock = corsLines.slice(15, 20).join("\n");

const prefixes: CorpusCase[] = [
  {
    name: "both strings copied with read_file's prefixes are stripped",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      shows(
        edit(
          "lib/cors.js",
          asShown(optionsBlock, 16),
          asShown(optionsBlock.replace("res.statusCode = 204;", "res.statusCode = 200;"), 16),
        ),
        "line-number prefixes",
        "were removed",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("= 204;", "= 200;") },
  },
  {
    name: "prefixed old_string, clean new_string",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit(
        "lib/cors.js",
        asShown("  var maxAge = options.maxAge || 600;", 8),
        "  var maxAge = options.maxAge || 60;",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("|| 600;", "|| 60;") },
  },
  {
    name: "prefixes only in new_string are refused instead of written",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "      res.statusCode = 204;\n      return res.end();",
          asShown("      res.statusCode = 200;\n      return res.end();", 18),
        ),
        "new_string has read_file's line-number prefixes",
        "`    18 | `",
        "Remove the",
      ),
    ],
  },
  {
    name: "line breaks escaped in new_string only are refused instead of written as \\n",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "      res.statusCode = 204;\n      return res.end();",
          "      res.statusCode = 204;\\n      res.setHeader('Content-Length', '0');\\n      return res.end();",
        ),
        "old_string spans 2 lines",
        "Send new_string with real line breaks",
      ),
    ],
  },
  {
    name: "a one-line edit may write a \\n escape into a string literal",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit(
        "lib/cors.js",
        "      res.statusCode = 204;",
        "      res.statusCode = 204; // see notes\\n",
      ),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace(
        "      res.statusCode = 204;",
        "      res.statusCode = 204; // see notes\\n",
      ),
    },
  },
  {
    name: "a blank line whose prefix lost its trailing space",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit(
        "lib/cors.js",
        "     8 |   var maxAge = options.maxAge || 600;\n     9 |\n    10 |   return function corsMiddleware(req, res, next) {",
        "     8 |   var maxAge = options.maxAge || 600;\n     9 |\n    10 |   return function cors(req, res, next) {",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("function corsMiddleware(", "function cors(") },
  },
  {
    name: "prefixes on some lines only: not found, and told which",
    category: "prefixes",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "      res.statusCode = 204;\n    19 |       return res.end();",
          "      res.statusCode = 200;\n      return res.end();",
        ),
        "starts with read_file's line-number prefix",
        "remove it from every line",
      ),
    ],
  },
  {
    name: "a file whose text really looks like read_file output is matched literally",
    category: "prefixes",
    files: { "fixtures/read.txt": "     1 | first\n     2 | second\n" },
    calls: [
      read("fixtures/read.txt"),
      edit("fixtures/read.txt", "     2 | second", "     2 | second\n     3 | third"),
    ],
    expect: { "fixtures/read.txt": "     1 | first\n     2 | second\n     3 | third\n" },
  },
  {
    name: "write_file content that is read_file output is refused",
    category: "prefixes",
    files: {},
    calls: [
      fails(
        write("lib/copy.js", `${asShown(corsLines.slice(0, 3).join("\n"), 1)}\n`),
        "every line of content starts with read_file's line-number prefix",
        "remove the prefixes",
      ),
    ],
    expect: { "lib/copy.js": null },
  },
  {
    name: "write_file content with one table-like line is written as given",
    category: "prefixes",
    files: {},
    calls: [write("docs/table.txt", "Results:\n  1 | pass\n  2 | fail\nend\n")],
    expect: { "docs/table.txt": "Results:\n  1 | pass\n  2 | fail\nend\n" },
  },
  {
    name: "six-digit line numbers are prefixes too",
    category: "prefixes",
    files: { "big.txt": "alpha\nbeta\n" },
    calls: [read("big.txt"), edit("big.txt", "123456 | beta", "123456 | gamma")],
    expect: { "big.txt": "alpha\ngamma\n" },
  },
];

const whitespace: CorpusCase[] = [
  {
    name: "indentation off by two spaces names the lines and the widths",
    category: "whitespace drift",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "      res.setHeader('Access-Control-Max-Age', String(maxAge));\n    res.statusCode = 204;",
          "      res.setHeader('Access-Control-Max-Age', String(maxAge));\n    res.statusCode = 200;",
        ),
        "lines 17-18 would match it except for whitespace",
        "line 18 is indented with 6 spaces in the file but 4 spaces in old_string",
        "    18 |       res.statusCode = 204;",
      ),
    ],
  },
  {
    name: "tabs in old_string where the file has spaces",
    category: "whitespace drift",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "  return function corsMiddleware(req, res, next) {\n\tvar origin",
          "x",
        ),
        "whitespace",
        "1 tab in old_string",
        "lines 10-11",
      ),
    ],
  },
  {
    name: "trailing spaces in the file that old_string leaves out",
    category: "whitespace drift",
    files: { "notes.md": "# Notes  \nFirst line.  \nSecond line.\n" },
    calls: [
      read("notes.md"),
      fails(
        edit("notes.md", "# Notes\nFirst line.", "# Notes\nLine one."),
        "whitespace",
        "line 1 ends with spaces in the file that old_string leaves out",
      ),
    ],
  },
  {
    name: "doubled space inside a line",
    category: "whitespace drift",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit("lib/cors.js", "var maxAge  = options.maxAge || 600;", "var maxAge = 600;"),
        "whitespace",
        "spacing inside line 8 differs",
      ),
    ],
  },
  {
    name: "old_string with a trailing space the file lacks",
    category: "whitespace drift",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit("lib/cors.js", "    next(); \n  };", "    return next();\n  };"),
        "whitespace",
        "line 21 has no trailing spaces in the file, but old_string adds some",
      ),
    ],
  },
  {
    name: "a whitespace miss, then the exact text",
    category: "whitespace drift",
    files: { ".github/workflows/ci.yml": workflow },
    calls: [
      read(".github/workflows/ci.yml"),
      fails(
        edit(
          ".github/workflows/ci.yml",
          "        - run: npm run lint\n",
          "        - run: npm run lint -- --max-warnings 0\n",
        ),
        "line 27 is indented with 6 spaces in the file but 8 spaces in old_string",
      ),
      edit(
        ".github/workflows/ci.yml",
        "      - run: npm run lint\n",
        "      - run: npm run lint -- --max-warnings 0\n",
      ),
    ],
    expect: {
      ".github/workflows/ci.yml": workflow.replace(
        "npm run lint\n",
        "npm run lint -- --max-warnings 0\n",
      ),
    },
  },
  {
    name: "YAML indented with a tab instead of spaces",
    category: "whitespace drift",
    files: { ".github/workflows/ci.yml": workflow },
    calls: [
      read(".github/workflows/ci.yml"),
      fails(
        edit(
          ".github/workflows/ci.yml",
          "  lint:\n\truns-on: ubuntu-latest",
          "  lint:\n    runs-on: ubuntu-22.04",
        ),
        "lines 22-23 would match it except for whitespace",
        "line 23 is indented with 4 spaces in the file but 1 tab in old_string",
      ),
    ],
  },
];

const lfHandlerAdded = mixedServer.replace(
  "  store.all(function (err, result) {\n",
  "  store.all(function (err, result) {\n    logger.debug('listing users');\n",
);
const crlfHandlerAdded = mixedServer.replace(
  "  store.find(req.params.id, function (err, result) {\r\n",
  "  store.find(req.params.id, function (err, result) {\r\n    logger.debug('finding user');\r\n",
);

const endings: CorpusCase[] = [
  {
    name: "CRLF file: a multi-line edit written with \\n keeps CRLF",
    category: "line endings and encodings",
    files: { "server.js": mixedServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "app.get('/health', function (req, res) {\n  res.send({ ok: true });\n});",
        "app.get('/health', function (req, res) {\n  res.set('Cache-Control', 'no-store');\n  res.send({ ok: true });\n});",
      ),
    ],
    expect: {
      "server.js": mixedServer.replace(
        "app.get('/health', function (req, res) {\r\n  res.send({ ok: true });\r\n",
        "app.get('/health', function (req, res) {\r\n  res.set('Cache-Control', 'no-store');\r\n  res.send({ ok: true });\r\n",
      ),
    },
  },
  {
    name: "mixed endings: a block seen 3 times is ambiguous, counting the LF copy",
    category: "line endings and encodings",
    files: { "server.js": mixedServer },
    calls: [
      read("server.js"),
      fails(
        edit(
          "server.js",
          "    if (err) return next(err);\n    res.send(result);",
          "    if (err) return next(err);\n    res.json(result);",
        ),
        "found 3 matches of old_string in server.js (at lines 16, 23, 30)",
        "replace_all",
      ),
    ],
  },
  {
    name: "mixed endings: replace_all changes all 3 and keeps each line's ending",
    category: "line endings and encodings",
    files: { "server.js": mixedServer },
    calls: [
      read("server.js"),
      shows(
        edit(
          "server.js",
          "    if (err) return next(err);\n    res.send(result);",
          "    if (err) return next(err);\n    res.json(result);",
          {
            replace_all: true,
          },
        ),
        "replaced 3 occurrences",
      ),
    ],
    expect: { "server.js": mixedServer.split("res.send(result)").join("res.json(result)") },
  },
  {
    name: "mixed endings: lines added inside the LF function get LF",
    category: "line endings and encodings",
    files: { "server.js": mixedServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "  store.all(function (err, result) {",
        "  store.all(function (err, result) {\n    logger.debug('listing users');",
      ),
    ],
    expect: { "server.js": lfHandlerAdded },
  },
  {
    name: "mixed endings: lines added in the CRLF part get CRLF",
    category: "line endings and encodings",
    files: { "server.js": mixedServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "  store.find(req.params.id, function (err, result) {",
        "  store.find(req.params.id, function (err, result) {\n    logger.debug('finding user');",
      ),
    ],
    expect: { "server.js": crlfHandlerAdded },
  },
  {
    name: "old_string sent with CRLF matches an LF file",
    category: "line endings and encodings",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit("lib/cors.js", "    }\r\n    next();\r\n", "    }\r\n    return next();\r\n"),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("    next();", "    return next();") },
  },
  {
    name: "a UTF-8 byte order mark survives an edit",
    category: "line endings and encodings",
    files: { "data/users.csv": "\uFEFFname,email\r\nada,ada@example.com\r\n" },
    calls: [
      shows(read("data/users.csv"), "     1 | name,email"),
      edit("data/users.csv", "name,email\nada", "name,email,role\nada"),
    ],
    expect: { "data/users.csv": "\uFEFFname,email,role\r\nada,ada@example.com\r\n" },
  },
  {
    name: "latin-1: read and edit both say how to convert, not 'read it first'",
    category: "line endings and encodings",
    files: { "legacy/menu.txt": latin1Text },
    calls: [
      fails(
        read("legacy/menu.txt"),
        "not valid UTF-8",
        "Latin-1",
        "iconv -f LATIN1 -t UTF-8",
        "run_shell",
      ),
      hides(
        fails(
          edit("legacy/menu.txt", "café", "cafe"),
          "edit_file cannot change legacy/menu.txt",
          "iconv",
          "sed -i",
        ),
        "has not been read",
      ),
    ],
  },
  {
    name: "binary: edit says to use run_shell, not 'read it first'",
    category: "line endings and encodings",
    files: { "public/logo.png": pngHeader },
    calls: [
      fails(read("public/logo.png"), "binary file", "xxd"),
      hides(
        fails(edit("public/logo.png", "PNG", "JPG"), "binary file", "run_shell"),
        "has not been read",
      ),
    ],
  },
  {
    name: "binary: write_file over an unread binary says how to replace it",
    category: "line endings and encodings",
    files: { "public/logo.png": pngHeader },
    calls: [
      fails(
        write("public/logo.png", "<svg/>"),
        "binary file",
        "rm public/logo.png",
        "then call write_file",
      ),
    ],
  },
  {
    name: "UTF-16: read says how to convert",
    category: "line endings and encodings",
    files: { "config.ini": utf16Text },
    calls: [fails(read("config.ini"), "UTF-16", "iconv -f UTF-16 -t UTF-8 config.ini")],
  },
  {
    name: "stray carriage returns (\\r\\r\\n) are named as mixed line endings",
    category: "line endings and encodings",
    files: { "notes.txt": "first = 1;\r\r\nsecond = 2;\r\r\nthird = 3;\r\n" },
    calls: [
      read("notes.txt"),
      fails(
        edit("notes.txt", "first = 1;\nsecond = 2;", "first = 10;\nsecond = 20;"),
        "mixed line endings",
        "line 1",
        "sed -i",
      ),
    ],
  },
  {
    name: "strings that differ only in line endings change nothing",
    category: "line endings and encodings",
    files: { "a.txt": crlf("one\ntwo\n") },
    calls: [
      read("a.txt"),
      fails(edit("a.txt", "one\r\ntwo", "one\ntwo"), "differ only in line endings", "run_shell"),
    ],
  },
  {
    name: "README with curly quotes edited where they are left alone",
    category: "line endings and encodings",
    files: { "README.md": readme },
    calls: [
      read("README.md"),
      edit("README.md", "## License\n\nMIT\n", "## License\n\nMIT © Router Kit authors\n"),
    ],
    expect: { "README.md": readme.replace("MIT\n", "MIT © Router Kit authors\n") },
  },
];

export const driftEdits: CorpusCase[] = [...prefixes, ...whitespace, ...endings];
