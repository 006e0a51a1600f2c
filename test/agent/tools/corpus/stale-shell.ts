import { type CorpusCase, edit, fails, read, shell, shows, write } from "./case.js";
import { expressUtils, requestsHooks } from "./real-files.js";

/*
 * A file a run_shell command changed, created or deleted is stale for
 * edit_file and write_file until it is read again; the refusal says what
 * the command did. A command that changes nothing (a read, a touch) leaves
 * the read valid.
 */

const appended = `${expressUtils}exports.extra = true;\n`;
const strictLine = "'use strict';";
const doubleQuoted = expressUtils.replace(/'/g, '"');

export const staleCases: CorpusCase[] = [
  {
    name: "an appended line: write_file from the earlier read is refused, and the command said so",
    category: "stale after run_shell",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      shows(
        shell("echo 'exports.extra = true;' >> lib/utils.js"),
        "note: this command changed files you had read: lib/utils.js (content changed)",
      ),
      fails(
        write("lib/utils.js", expressUtils.replace(strictLine, '"use strict";')),
        "lib/utils.js is stale",
        "`echo 'exports.extra = true;' >> lib/utils.js`",
        "content changed",
        "read_file",
      ),
    ],
    expect: { "lib/utils.js": appended },
  },
  {
    name: "edit_file, then sed -i '1i ...', then write_file built from the first view: refused",
    category: "stale after run_shell",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      edit("lib/utils.js", "var etag = require('etag');", "var etag = require('etag'); // strong"),
      shell("sed -i '1i // generated' lib/utils.js"),
      fails(
        write("lib/utils.js", expressUtils),
        "is stale",
        "`sed -i '1i // generated' lib/utils.js`",
        "content changed",
      ),
    ],
    expect: {
      "lib/utils.js": `// generated\n${expressUtils.replace("var etag = require('etag');", "var etag = require('etag'); // strong")}`,
    },
  },
  {
    name: "git rm, then edit_file: refused as deleted, with the way back",
    category: "stale after run_shell",
    git: true,
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py"),
      shows(shell("git rm -q src/requests/hooks.py"), "src/requests/hooks.py (deleted)"),
      fails(
        edit("src/requests/hooks.py", 'HOOKS: list[str] = ["response"]', "HOOKS = []"),
        "src/requests/hooks.py was deleted by the run_shell command `git rm -q src/requests/hooks.py` after you read it",
        "git checkout -- src/requests/hooks.py",
        "write_file",
      ),
    ],
    expect: { "src/requests/hooks.py": null },
  },
  {
    name: "a formatter turns every ' into \" (same size): the old text is refused as stale, then as different quotes",
    category: "stale after run_shell",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      shell(`sed -i "s/'/\\"/g" lib/utils.js`),
      fails(
        edit("lib/utils.js", "var qs = require('qs');", "var qs = require('qs'); // parser"),
        "lib/utils.js is stale",
        "content changed",
      ),
      read("lib/utils.js", { offset: 15, limit: 8 }),
      fails(
        edit("lib/utils.js", "var qs = require('qs');", "var qs = require('qs'); // parser"),
        "quote characters differ (they are not interchangeable)",
        "line 20 has `\"` where old_string has `'`",
      ),
      edit("lib/utils.js", 'var qs = require("qs");', 'var qs = require("qs"); // parser'),
    ],
    expect: {
      "lib/utils.js": doubleQuoted.replace(
        'var qs = require("qs");',
        'var qs = require("qs"); // parser',
      ),
    },
  },
  {
    name: "cat, git status and a touch change nothing: the read stays good",
    category: "stale after run_shell",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      shell("wc -l lib/utils.js && git status --short && touch lib/utils.js"),
      edit("lib/utils.js", "var qs = require('qs');", "var qs = require('qs'); // parser"),
    ],
    expect: {
      "lib/utils.js": expressUtils.replace(
        "var qs = require('qs');",
        "var qs = require('qs'); // parser",
      ),
    },
  },
  {
    name: "chmod +x: refused with the mode change named",
    category: "stale after run_shell",
    git: true,
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py"),
      shell("chmod +x src/requests/hooks.py"),
      fails(
        edit("src/requests/hooks.py", "# TODO: response is the only one", "# response only"),
        "is stale",
        "mode changed from 100644 to 100755",
        "read_file",
      ),
    ],
  },
  {
    name: "a file the agent wrote, reformatted by a command, must be read before the next edit",
    category: "stale after run_shell",
    git: true,
    files: {},
    calls: [
      write("lib/extra.js", "module.exports = {\n  a: 1,\n};\n"),
      shell("sed -i 's/^  /\\t/' lib/extra.js"),
      fails(edit("lib/extra.js", "  a: 1,", "  a: 2,"), "lib/extra.js is stale", "content changed"),
      read("lib/extra.js"),
      edit("lib/extra.js", "\ta: 1,", "\ta: 2,"),
    ],
    expect: { "lib/extra.js": "module.exports = {\n\ta: 2,\n};\n" },
  },
  {
    name: "outside a git repository too: an appended line makes the file stale",
    category: "stale after run_shell",
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      shell("echo 'exports.extra = true;' >> lib/utils.js"),
      fails(
        edit("lib/utils.js", "var qs = require('qs');", "var qs = require('qs'); // parser"),
        "is stale",
        "content changed",
      ),
    ],
    expect: { "lib/utils.js": appended },
  },
  {
    name: "deleted by one command and restored by another: stale until read again",
    category: "stale after run_shell",
    git: true,
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py"),
      shell("git rm -q src/requests/hooks.py"),
      shell("git checkout HEAD -- src/requests/hooks.py"),
      fails(
        write("src/requests/hooks.py", requestsHooks.replace("# TODO", "# NOTE")),
        "is stale",
        "`git checkout HEAD -- src/requests/hooks.py`",
        "deleted and created again",
      ),
      read("src/requests/hooks.py"),
      write("src/requests/hooks.py", requestsHooks.replace("# TODO", "# NOTE")),
    ],
    expect: { "src/requests/hooks.py": requestsHooks.replace("# TODO", "# NOTE") },
  },
  {
    name: "write_file over a file a command deleted says it exists again",
    category: "stale after run_shell",
    git: true,
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py"),
      shell("git rm -q src/requests/hooks.py"),
      shows(
        write("src/requests/hooks.py", requestsHooks),
        "Created src/requests/hooks.py",
        "it had been deleted since you read it",
      ),
    ],
  },
  {
    name: "git mv: the edit says where the file went",
    category: "stale after run_shell",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      shows(shell("git mv lib/utils.js lib/util.js"), "lib/utils.js (moved to lib/util.js)"),
      fails(
        edit("lib/utils.js", "var qs = require('qs');", "var qs = require('qs'); // parser"),
        "lib/utils.js was moved to lib/util.js",
        "call read_file on lib/util.js",
      ),
    ],
    expect: { "lib/utils.js": null, "lib/util.js": expressUtils },
  },
  {
    name: "after an append, reading only the new tail does not license write_file from the first view",
    category: "stale after run_shell",
    git: true,
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      shell("echo 'exports.extra = true;' >> lib/utils.js"),
      read("lib/utils.js", { offset: 270 }),
      fails(
        write("lib/utils.js", expressUtils.replace(strictLine, '"use strict";')),
        "write_file replaces all of lib/utils.js, but you have seen only lines 270-272 of its 272 lines",
        "read_file with offset 1",
        "edit_file",
      ),
      read("lib/utils.js", { limit: 269 }),
      write("lib/utils.js", appended.replace(strictLine, '"use strict";')),
    ],
    expect: { "lib/utils.js": appended.replace(strictLine, '"use strict";') },
  },
];
