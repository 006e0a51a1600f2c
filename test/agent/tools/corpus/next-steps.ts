import { type CorpusCase, edit, fails, grep, read, shows, write } from "./case.js";
import { attachmentTest, expressResponse, expressUtils, requestsHooks } from "./real-files.js";

/*
 * Every refusal says what happened and what to do next: no such file (with
 * the closest path), CR-only line endings, a file too large to read whole,
 * lines cut in a minified file, and old_string slips (a line break too
 * many, backslashes doubled).
 */

/** Just over 20 MB of numbered text lines. */
const bigDump = Array.from(
  { length: 330_000 },
  (_, i) => `INSERT INTO events VALUES (${i + 1}, 'page_view', '2026-12-01T10:00:00Z');`,
).join("\n");

/** Minified code: lines 1, 3 and 5 are long. */
const long = (n: number) => `var x${n}=[${Array.from({ length: 700 }, (_, i) => i).join(",")}];`;
const bundle = `${long(1)}\n// chunk 2\n${long(3)}\n// chunk 4\n${long(5)}\n`;

const macText = "Title: Notes\rfirst point\rsecond point\r";

export const nextStepCases: CorpusCase[] = [
  {
    name: "a path with a trailing space: no such file, and the file meant",
    category: "next steps",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      fails(
        read("lib/utils.js "),
        '"lib/utils.js " does not exist (no such file or directory)',
        "ends with a space",
        'The closest existing path is "lib/utils.js"',
      ),
    ],
  },
  {
    name: "a misspelt file name: the closest existing path",
    category: "next steps",
    git: true,
    files: { "lib/utils.js": expressUtils, "lib/response.js": expressResponse },
    calls: [fails(read("lib/util.js"), "lib/util.js does not exist", '"lib/utils.js"')],
  },
  {
    name: "edit_file in a misspelt folder: the closest existing path",
    category: "next steps",
    git: true,
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      fails(
        edit("src/request/hooks.py", "HOOKS", "EVENTS"),
        "src/request/hooks.py does not exist",
        '"src/requests/hooks.py"',
        "write_file",
      ),
    ],
  },
  {
    name: "grep_search in a misspelt folder: the closest existing path",
    category: "next steps",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [fails(grep("etag", { path: "libs" }), "libs does not exist", '"lib"')],
  },
  {
    name: "write_file to a new name with a trailing space is refused with the name meant",
    category: "next steps",
    files: {},
    calls: [
      fails(
        write("lib/new.js ", "module.exports = {};\n"),
        '"lib/new.js " does not exist',
        "ends with a space",
        'Use "lib/new.js"',
      ),
    ],
  },
  {
    name: "a CR-only file is read as lines and says so",
    category: "next steps",
    files: { "docs/notes.txt": macText },
    calls: [
      {
        ...read("docs/notes.txt"),
        exactly: `     1 | Title: Notes\n     2 | first point\n     3 | second point\n[docs/notes.txt uses CR-only line endings (a lone \\r ends each line, as on classic Mac OS), so its lines are shown split at each \\r. edit_file matches these lines and keeps the \\r endings; to convert the file to LF, use run_shell (\`sed -i 's/\\r/\\n/g' docs/notes.txt\`)]`,
      },
    ],
  },
  {
    name: "a CR-only file is edited line by line, keeping its CRs",
    category: "next steps",
    files: { "docs/notes.txt": macText },
    calls: [
      read("docs/notes.txt"),
      edit("docs/notes.txt", "first point\nsecond point", "first point\nsecond point\nthird point"),
    ],
    expect: { "docs/notes.txt": "Title: Notes\rfirst point\rsecond point\rthird point\r" },
  },
  {
    name: "a carriage return inside a line is named",
    category: "next steps",
    files: { "build.log": "step 1\nprogress 10%\rprogress 100%\ndone\n" },
    calls: [
      shows(
        read("build.log"),
        "[line 2 holds a carriage return (\\r) inside the line, which most displays hide",
      ),
    ],
  },
  {
    name: "a file over 20 MB: too large to read whole, and a part can be read",
    category: "next steps",
    files: { "data/events.sql": bigDump },
    calls: [
      fails(
        read("data/events.sql"),
        "data/events.sql is too large to read whole",
        "read_file offset and limit",
        "grep_search",
      ),
      {
        ...read("data/events.sql", { offset: 1000, limit: 2 }),
        exactly: [
          "  1000 | INSERT INTO events VALUES (1000, 'page_view', '2026-12-01T10:00:00Z');",
          "  1001 | INSERT INTO events VALUES (1001, 'page_view', '2026-12-01T10:00:00Z');",
          "[lines 1000-1001 shown; the file is too large to count its lines; call read_file with offset 1002 to read more]",
        ].join("\n"),
      },
    ],
  },
  {
    name: "a minified file names every line it cut",
    category: "next steps",
    files: { "dist/bundle.js": bundle },
    calls: [
      shows(
        read("dist/bundle.js"),
        "[lines 1, 3 and 5 are longer than 2000 characters and cut where marked (no line is left out)",
        "     4 | // chunk 4",
      ),
    ],
  },
  {
    name: "old_string with one line break too many at the end of the file",
    category: "next steps",
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py", { offset: 44 }),
      fails(
        edit(
          "src/requests/hooks.py",
          "                hook_data = _hook_data\n    return hook_data\n\n",
          "                hook_data = _hook_data\n    return hook_data or None\n\n",
        ),
        "old_string ends with 2 line breaks, but the file ends after line 48 with a single final newline",
        "Drop the last line break from old_string",
      ),
    ],
  },
  {
    name: "old_string with doubled backslashes where the file has single ones",
    category: "next steps",
    files: { "lib/response.js": expressResponse },
    calls: [
      read("lib/response.js", { offset: 285, limit: 5 }),
      fails(
        edit(
          "lib/response.js",
          "callback = callback.replace(/[^\\\\[\\\\]\\\\w$.]/g, '');",
          "callback = callback.replace(/[^\\\\[\\\\]\\\\w$.]/g, '').slice(0, 64);",
        ),
        "old_string is escaped twice",
        "at line 288",
        "with the text exactly as the file has it",
      ),
    ],
  },
  {
    name: "an escaped quote doubled: \\\\' for the file's \\'",
    category: "next steps",
    files: { "test/res.attachment.js": attachmentTest },
    calls: [
      read("test/res.attachment.js", { offset: 86, limit: 4 }),
      fails(
        edit(
          "test/res.attachment.js",
          "filename*=UTF-8\\\\'\\\\'%E6%97%A5",
          "filename*=UTF-8''%E6%97%A5",
        ),
        "old_string is escaped twice",
        "at line 88",
      ),
    ],
  },
  {
    name: "line breaks escaped twice (\\\\n) where the file has real ones",
    category: "next steps",
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js", { offset: 15, limit: 5 }),
      fails(
        edit(
          "lib/utils.js",
          "var contentType = require('content-type');\\\\nvar etag = require('etag');",
          "var etag = require('etag');",
        ),
        "old_string is escaped twice",
        "where the file has a real line break",
      ),
    ],
  },
];
