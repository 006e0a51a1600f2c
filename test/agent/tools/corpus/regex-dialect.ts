import { type CorpusCase, fails, grep, hides, read, shows } from "./case.js";
import { expressRequest, expressResponse, expressUtils, requestsAuth } from "./real-files.js";

/*
 * grep_search speaks one dialect, JavaScript's: what it has works exactly,
 * the PCRE and POSIX spellings with one meaning are translated, and the
 * rest is refused with where it is and the rewrite to use.
 */

const lib = {
  "lib/request.js": expressRequest,
  "lib/response.js": expressResponse,
  "lib/utils.js": expressUtils,
};

/** About 3 MB of access log with one line that matters near its end. */
const accessLog = `${Array.from(
  { length: 40_000 },
  (_, i) =>
    `127.0.0.1 - - [01/Dec/2026:10:${String(i % 60).padStart(2, "0")}:00] "GET /health HTTP/1.1" 200 2`,
).join("\n")}\n127.0.0.1 - - [01/Dec/2026:11:00:00] "POST /login HTTP/1.1" 500 0\n`;

export const regexDialectCases: CorpusCase[] = [
  {
    name: "case_insensitive finds Content-Type in every spelling",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [
      {
        ...grep("content-type", { path: "lib/request.js", case_insensitive: true }),
        exactly: [
          "lib/request.js:47: *     req.get('Content-Type');",
          "lib/request.js:50: *     req.get('content-type');",
          'lib/request.js:244: * Check if the incoming request contains the "Content-Type"',
          "lib/request.js:249: *      // With Content-Type: text/html; charset=utf-8",
          "lib/request.js:255: *      // When Content-Type is application/json",
        ].join("\n"),
      },
    ],
  },
  {
    name: "lookbehind and lookahead: res.send called with a string",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [
      {
        ...grep("(?<=res\\.)send\\((?=')", { path: "lib/response.js" }),
        exactly: [
          "lib/response.js:120: *     res.send('<p>some html</p>');",
          "lib/response.js:531: *        res.send('hey');",
          "lib/response.js:535: *        res.send('<p>hey</p>');",
          "lib/response.js:548: *        res.send('hey');",
          "lib/response.js:552: *        res.send('<p>hey</p>');",
        ].join("\n"),
      },
    ],
  },
  {
    name: "a named group and its backreference: the same quote on both sides",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [
      shows(
        grep("(?<quote>['\"])utf-?8\\k<quote>", { path: "lib" }),
        'lib/request.js:150: * - A single charset string (e.g., "utf-8")',
        "lib/response.js:137:      encoding = 'utf8';",
        "lib/response.js:141:        this.set('Content-Type', setCharset(type, 'utf-8'));",
      ),
    ],
  },
  {
    name: "\\p{Lu} finds capitals as Unicode says",
    category: "regex dialect",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      {
        ...grep("\\p{Lu}{4,}"),
        exactly: [
          "lib/utils.js:15:var { METHODS } = require('node:http');",
          "lib/utils.js:26: * A list of lowercased HTTP methods that are supported by Node.js.",
          "lib/utils.js:29:exports.methods = METHODS.map((method) => method.toLowerCase());",
        ].join("\n"),
      },
    ],
  },
  {
    name: "(?i) in the middle is refused with the case_insensitive option",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [
      fails(
        grep("req\\.get\\('(?i)content-type"),
        'the inline flags "(?i)" at column 12 are not supported',
        "set case_insensitive: true",
      ),
    ],
  },
  {
    name: "(?i:...) scoped flags are refused with the rewrite",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [fails(grep("(?i:content)-Type"), "case_insensitive: true", "[Gg][Ee][Tt]")],
  },
  {
    name: "a possessive quantifier is refused with the plain one to use",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [fails(grep("\\w++\\("), 'the possessive repetition "++" at column 3', 'write "+"')],
  },
  {
    name: "an atomic group is refused with (?:...) to use",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [fails(grep("(?>res|req)\\.get"), "atomic group", "use a plain group (?:...)")],
  },
  {
    name: "\\Q...\\E quotes a piece of code",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [
      {
        ...grep("\\Qreplace(/[^\\[\\]\\w$.]/g\\E"),
        exactly: "lib/response.js:288:    callback = callback.replace(/[^\\[\\]\\w$.]/g, '');",
      },
    ],
  },
  {
    name: "a Python named backreference (?P=name) works",
    category: "regex dialect",
    git: true,
    files: { "src/requests/auth.py": requestsAuth },
    calls: [
      shows(
        grep("def (?P<dunder>__)\\w+(?P=dunder)\\(self", { path: "src/requests/auth.py" }),
        "src/requests/auth.py:81:    def __call__(self, r: PreparedRequest) -> PreparedRequest:",
        "src/requests/auth.py:100:    def __eq__(self, other: object) -> bool:",
      ),
      hides(
        grep("def (?P<dunder>__)\\w+(?P=dunder)\\(self", { path: "src/requests/auth.py" }),
        "_basic_auth_str",
      ),
    ],
  },
  {
    name: "an unbalanced ( says the pattern is invalid, and where",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [
      fails(
        grep("res.send(body"),
        "is not a valid regular expression",
        'the "(" at column 9 is never closed',
        "escape it as \\(",
      ),
    ],
  },
  {
    name: "an unclosed [ says where",
    category: "regex dialect",
    git: true,
    files: lib,
    calls: [fails(grep("callback.replace(/[^\\[\\]"), 'the "[" at column 19 is never closed')],
  },
  {
    name: "a file over 2 MB outside git is searched, not skipped",
    category: "regex dialect",
    files: { "logs/access.log": accessLog },
    calls: [
      {
        ...grep('"POST /login[^"]*" 5\\d\\d'),
        exactly:
          'logs/access.log:40001:127.0.0.1 - - [01/Dec/2026:11:00:00] "POST /login HTTP/1.1" 500 0',
      },
    ],
  },
  {
    name: "a CR-only file's lines are numbered as read_file numbers them",
    category: "regex dialect",
    git: true,
    files: { "legacy/notes.txt": "first line\rsecond TODO\rthird\r" },
    calls: [
      { ...grep("^second"), exactly: "legacy/notes.txt:2:second TODO" },
      shows(read("legacy/notes.txt"), "     2 | second TODO"),
    ],
  },
];
