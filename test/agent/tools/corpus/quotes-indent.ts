import { type CorpusCase, edit, fails, read, shows, write } from "./case.js";
import { expressCi, expressUtils, requestsHooks, requestsMakefile } from "./real-files.js";

/*
 * Characters that differ in meaning are never taken for one another: ' " `
 * in code, and tabs and spaces at the start of a line in a Makefile, YAML or
 * Python. A near miss gets the closest lines and the exact difference; an
 * edit that would break the file's indentation is refused, not written.
 */

const testTarget = "test:\n\tpython -m pytest tests\n";

export const quoteAndIndentCases: CorpusCase[] = [
  {
    name: "Makefile: old_string indented with spaces where the recipe has a tab",
    category: "quotes and indentation",
    files: { Makefile: requestsMakefile },
    calls: [
      read("Makefile"),
      fails(
        edit(
          "Makefile",
          "test:\n    python -m pytest tests\n",
          "test:\n    python -m pytest -x tests\n",
        ),
        "line 5 is indented with 1 tab in the file but 4 spaces in old_string",
        "In a Makefile a tab and spaces are different: recipe lines start with a tab",
      ),
    ],
  },
  {
    name: "Makefile: a recipe rewritten with spaces is refused, with a tab it goes through",
    category: "quotes and indentation",
    files: { Makefile: requestsMakefile },
    calls: [
      read("Makefile"),
      fails(
        edit("Makefile", testTarget, "test:\n    python -m pytest -x tests\n"),
        "line 2 of new_string is a recipe line of Makefile indented with spaces",
        "start with a tab",
      ),
      edit("Makefile", testTarget, "test:\n\tpython -m pytest -x tests\n"),
    ],
    expect: {
      Makefile: requestsMakefile.replace(testTarget, "test:\n\tpython -m pytest -x tests\n"),
    },
  },
  {
    name: "Makefile: a new target's recipe written with spaces is refused",
    category: "quotes and indentation",
    files: { Makefile: requestsMakefile },
    calls: [
      read("Makefile"),
      fails(
        edit("Makefile", ".PHONY: docs\n", ".PHONY: docs lint\nlint:\n  ruff check src\n"),
        "line 3 of new_string is a recipe line",
        "make runs only recipe lines that start with a tab",
      ),
    ],
  },
  {
    name: "YAML: a step indented with a tab is refused",
    category: "quotes and indentation",
    files: { ".github/workflows/ci.yml": expressCi },
    calls: [
      read(".github/workflows/ci.yml"),
      fails(
        edit(
          ".github/workflows/ci.yml",
          "      - name: Run lint\n        run: npm run lint\n",
          "      - name: Run lint\n        run: npm run lint\n\t- name: Audit\n\t  run: npm audit\n",
        ),
        "line 3 of new_string is indented with a tab, which YAML does not allow",
      ),
    ],
  },
  {
    name: "YAML: old_string with a tab where the file has spaces names the spaces",
    category: "quotes and indentation",
    files: { ".github/workflows/ci.yml": expressCi },
    calls: [
      read(".github/workflows/ci.yml"),
      fails(
        edit(
          ".github/workflows/ci.yml",
          "permissions:\n\tcontents: read",
          "permissions:\n  contents: write",
        ),
        "line 17 is indented with 2 spaces in the file but 1 tab in old_string",
        "YAML indents with spaces only",
      ),
    ],
  },
  {
    name: "Python: tab-indented lines in a file indented with spaces are refused",
    category: "quotes and indentation",
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py"),
      fails(
        edit(
          "src/requests/hooks.py",
          "    hooks_dict = hooks or {}\n",
          "    hooks_dict = hooks or {}\n\tif not hooks_dict:\n\t\treturn hook_data\n",
        ),
        "line 2 of new_string is indented with a tab but src/requests/hooks.py indents with spaces",
        "TabError",
      ),
    ],
  },
  {
    name: "Python: old_string indented with a tab where the file has four spaces",
    category: "quotes and indentation",
    files: { "src/requests/hooks.py": requestsHooks },
    calls: [
      read("src/requests/hooks.py"),
      fails(
        edit(
          "src/requests/hooks.py",
          "def default_hooks() -> dict[str, list[_t.HookType]]:\n\treturn {event: [] for event in HOOKS}",
          "def default_hooks() -> dict[str, list[_t.HookType]]:\n\treturn {}",
        ),
        "line 26 is indented with 4 spaces in the file but 1 tab in old_string",
        "Python's indentation is part of the code",
      ),
    ],
  },
  {
    name: "JS: double quotes in old_string where express has single quotes",
    category: "quotes and indentation",
    files: { "lib/utils.js": expressUtils },
    calls: [
      read("lib/utils.js"),
      fails(
        edit(
          "lib/utils.js",
          'var etag = require("etag");',
          'var etag = require("etag"); // strong',
        ),
        "line 17 would match it except for quote or dash characters",
        "quote characters differ (they are not interchangeable): line 17 has `'` where old_string has `\"`",
        "Quotes are different characters, not a style",
      ),
    ],
  },
  {
    name: "JS: a template literal's backticks are not single quotes",
    category: "quotes and indentation",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own template literal.
    files: { "lib/log.js": "var name = 'app';\nconsole.log(`listening as ${name}`);\n" },
    calls: [
      read("lib/log.js"),
      fails(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: old_string as the model wrote it.
        edit("lib/log.js", "console.log('listening as ${name}');", "console.log('ready');"),
        "quote characters differ (they are not interchangeable): line 2 has a backtick (`) where old_string has `'`",
      ),
    ],
  },
  {
    name: "shell: '$HOME' is not \"$HOME\"",
    category: "quotes and indentation",
    files: { "scripts/setup.sh": '#!/bin/sh\ncp config.example "$HOME/.apprc"\n' },
    calls: [
      read("scripts/setup.sh"),
      fails(
        edit(
          "scripts/setup.sh",
          "cp config.example '$HOME/.apprc'",
          "cp config.example '$HOME/.config/apprc'",
        ),
        "quote characters differ",
        "has `\"` where old_string has `'`",
      ),
    ],
  },
  {
    name: "Makefile: an edit that keeps the tab goes through untouched elsewhere",
    category: "quotes and indentation",
    files: { Makefile: requestsMakefile },
    calls: [
      read("Makefile"),
      shows(
        edit(
          "Makefile",
          "\tpython -m pytest tests --junitxml=report.xml",
          "\tpython -m pytest tests --junitxml=junit.xml",
        ),
        "Edited Makefile",
      ),
      fails(
        edit(
          "Makefile",
          "ci:\n\tpython -m pytest tests --junitxml=junit.xml",
          "ci:\n        python -m pytest tests",
        ),
        "indented with spaces",
      ),
    ],
    expect: { Makefile: requestsMakefile.replace("report.xml", "junit.xml") },
  },
  {
    name: "Makefile: write_file with a recipe indented with spaces is refused",
    category: "quotes and indentation",
    files: { Makefile: requestsMakefile },
    calls: [
      read("Makefile"),
      fails(
        write("Makefile", "init:\n    pip install -r requirements-dev.txt\n"),
        "line 2 of content is a recipe line of Makefile indented with spaces",
        "call write_file again",
      ),
    ],
  },
];
