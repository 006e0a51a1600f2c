import { type CorpusCase, edit, fails, read, shows } from "./case.js";
import { corsMiddleware, declarations, lfServer, readme, workflow } from "./fixtures.js";

const exact: CorpusCase[] = [
  {
    name: "one line of a middleware changes",
    category: "exact",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      shows(
        edit(
          "lib/cors.js",
          "var maxAge = options.maxAge || 600;",
          "var maxAge = options.maxAge || 86400;",
        ),
        "Edited lib/cors.js: replaced 1 occurrence.",
        "+  var maxAge = options.maxAge || 86400;",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("|| 600;", "|| 86400;") },
  },
  {
    name: "a token in the middle of a line",
    category: "exact",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit("lib/cors.js", "res.statusCode = 204", "res.statusCode = 200"),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("= 204", "= 200") },
  },
  {
    name: "dollar patterns in new_string stay literal",
    category: "exact",
    files: { "src/price.sh": 'echo "total: $TOTAL"\n' },
    calls: [
      read("src/price.sh"),
      edit("src/price.sh", '"total: $TOTAL"', '"total: $$TOTAL $& $1 $\'"'),
    ],
    expect: { "src/price.sh": 'echo "total: $$TOTAL $& $1 $\'"\n' },
  },
  {
    name: "an empty new_string deletes the text",
    category: "exact",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit("lib/cors.js", "      res.setHeader('Vary', 'Origin');\n", ""),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace("      res.setHeader('Vary', 'Origin');\n", ""),
    },
  },
  {
    name: "a declaration file's signature",
    category: "exact",
    files: { "types/index.d.ts": declarations },
    calls: [
      read("types/index.d.ts"),
      edit(
        "types/index.d.ts",
        "  close(): Promise<void>;",
        "  close(force?: boolean): Promise<void>;",
      ),
    ],
    expect: {
      "types/index.d.ts": declarations.replace(
        "close(): Promise",
        "close(force?: boolean): Promise",
      ),
    },
  },
  {
    name: "a YAML value",
    category: "exact",
    files: { ".github/workflows/ci.yml": workflow },
    calls: [
      read(".github/workflows/ci.yml"),
      edit(".github/workflows/ci.yml", "node: [18, 20]", "node: [20, 22]"),
    ],
    expect: { ".github/workflows/ci.yml": workflow.replace("[18, 20]", "[20, 22]") },
  },
  {
    name: "a Markdown heading",
    category: "exact",
    files: { "README.md": readme },
    calls: [read("README.md"), edit("README.md", "## Install\n", "## Installation\n")],
    expect: { "README.md": readme.replace("## Install\n", "## Installation\n") },
  },
  {
    name: "two edits in a row need no second read",
    category: "exact",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "var port = process.env.PORT || 3000;",
        "const port = process.env.PORT || 8080;",
      ),
      edit("server.js", "var app = express();", "const app = express();"),
    ],
    expect: {
      "server.js": lfServer
        .replace("var port = process.env.PORT || 3000;", "const port = process.env.PORT || 8080;")
        .replace("var app = express();", "const app = express();"),
    },
  },
];

const replaceAll: CorpusCase[] = [
  {
    name: "renames a variable everywhere",
    category: "replace_all",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      shows(
        edit("lib/cors.js", "origins", "allowedOrigins", { replace_all: true }),
        "replaced 4 occurrences",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.split("origins").join("allowedOrigins") },
  },
  {
    name: "a single occurrence with replace_all",
    category: "replace_all",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      shows(
        edit("lib/cors.js", "next();", "return next();", { replace_all: true }),
        "replaced 1 occurrence.",
      ),
    ],
    expect: { "lib/cors.js": corsMiddleware.replace("    next();", "    return next();") },
  },
  {
    name: "new_string containing old_string does not loop",
    category: "replace_all",
    files: { "a.js": "log(a);\nlog(b);\nlog(c);\n" },
    calls: [read("a.js"), edit("a.js", "log(", "logger.log(", { replace_all: true })],
    expect: { "a.js": "logger.log(a);\nlogger.log(b);\nlogger.log(c);\n" },
  },
  {
    name: "every job's runner in a workflow",
    category: "replace_all",
    files: { ".github/workflows/ci.yml": workflow },
    calls: [
      read(".github/workflows/ci.yml"),
      shows(
        edit(".github/workflows/ci.yml", "runs-on: ubuntu-latest", "runs-on: ubuntu-24.04", {
          replace_all: true,
        }),
        "replaced 2 occurrences",
      ),
    ],
    expect: { ".github/workflows/ci.yml": workflow.split("ubuntu-latest").join("ubuntu-24.04") },
  },
  {
    name: "replace_all with nothing to replace explains the miss",
    category: "replace_all",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit("lib/cors.js", "allowOrigins", "allowedOrigins", { replace_all: true }),
        "was not found in lib/cors.js",
      ),
    ],
  },
  {
    name: "repeated characters are replaced left to right without overlap",
    category: "replace_all",
    files: { "sep.txt": "a----b\n" },
    calls: [
      read("sep.txt"),
      shows(edit("sep.txt", "--", "=", { replace_all: true }), "replaced 2 occurrences"),
    ],
    expect: { "sep.txt": "a==b\n" },
  },
  {
    name: "a multi-line block repeated in three handlers",
    category: "replace_all",
    files: { "server.js": lfServer },
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
    expect: { "server.js": lfServer.split("res.send(result)").join("res.json(result)") },
  },
];

const multiLine: CorpusCase[] = [
  {
    name: "a function body is rewritten",
    category: "multi-line",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit(
        "lib/cors.js",
        "    if (req.method === 'OPTIONS') {\n      res.setHeader('Access-Control-Max-Age', String(maxAge));\n      res.statusCode = 204;\n      return res.end();\n    }",
        "    if (req.method === 'OPTIONS') {\n      res.statusCode = 204;\n      return res.end();\n    }",
      ),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace(
        "      res.setHeader('Access-Control-Max-Age', String(maxAge));\n",
        "",
      ),
    },
  },
  {
    name: "lines inserted after an anchor line",
    category: "multi-line",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "app.use(express.json());\n",
        "app.use(express.json());\napp.use(express.urlencoded({ extended: false }));\n",
      ),
    ],
    expect: {
      "server.js": lfServer.replace(
        "app.use(express.json());\n",
        "app.use(express.json());\napp.use(express.urlencoded({ extended: false }));\n",
      ),
    },
  },
  {
    name: "a YAML step list grows",
    category: "multi-line",
    files: { ".github/workflows/ci.yml": workflow },
    calls: [
      read(".github/workflows/ci.yml"),
      edit(
        ".github/workflows/ci.yml",
        "      - run: npm ci\n      - run: npm test\n",
        "      - run: npm ci\n      - run: npm run build\n      - run: npm test\n",
      ),
    ],
    expect: {
      ".github/workflows/ci.yml": workflow.replace(
        "      - run: npm ci\n      - run: npm test\n",
        "      - run: npm ci\n      - run: npm run build\n      - run: npm test\n",
      ),
    },
  },
  {
    name: "a Markdown list item is added",
    category: "multi-line",
    files: { "README.md": readme },
    calls: [
      read("README.md"),
      edit(
        "README.md",
        "- Supports wildcards: `/files/*`\n",
        "- Supports wildcards: `/files/*`\n- Supports regular expressions: `/^\\/v\\d+/`\n",
      ),
    ],
    expect: {
      "README.md": readme.replace(
        "- Supports wildcards: `/files/*`\n",
        "- Supports wildcards: `/files/*`\n- Supports regular expressions: `/^\\/v\\d+/`\n",
      ),
    },
  },
  {
    name: "a block of lines is removed",
    category: "multi-line",
    files: { "types/index.d.ts": declarations },
    calls: [
      read("types/index.d.ts"),
      edit(
        "types/index.d.ts",
        "  /** Milliseconds before an idle socket is closed. */\n  keepAliveTimeout?: number;\n",
        "",
      ),
    ],
    expect: {
      "types/index.d.ts": declarations.replace(
        "  /** Milliseconds before an idle socket is closed. */\n  keepAliveTimeout?: number;\n",
        "",
      ),
    },
  },
  {
    name: "fewer lines in new_string than old_string",
    category: "multi-line",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "app.get('/health', function (req, res) {\n  res.send({ ok: true });\n});",
        "app.get('/health', (req, res) => res.send({ ok: true }));",
      ),
    ],
    expect: {
      "server.js": lfServer.replace(
        "app.get('/health', function (req, res) {\n  res.send({ ok: true });\n});",
        "app.get('/health', (req, res) => res.send({ ok: true }));",
      ),
    },
  },
  {
    name: "old_string spanning the last line of the file",
    category: "multi-line",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "  logger.info('listening on ' + port);\n});\n",
        "  logger.info('listening on ' + port);\n});\n\nmodule.exports = app;\n",
      ),
    ],
    expect: { "server.js": `${lfServer}\nmodule.exports = app;\n` },
  },
];

const yamlSteps = `jobs:
  test:
    steps:
      - run: npm ci
      - run: npm test
`;

const anchors: CorpusCase[] = [
  {
    name: "YAML: old_string starts inside the indentation, added lines follow it",
    category: "anchors",
    files: { "ci.yml": yamlSteps },
    calls: [
      read("ci.yml"),
      // The model dropped two of the six spaces and wrote the new step against its own view.
      shows(
        edit("ci.yml", "    - run: npm ci", "    - run: npm ci\n    - run: npm run build"),
        "began inside the indentation of line 4",
        "indented by 2 spaces more",
      ),
    ],
    expect: {
      "ci.yml": yamlSteps.replace(
        "      - run: npm ci\n",
        "      - run: npm ci\n      - run: npm run build\n",
      ),
    },
  },
  {
    name: "JS: old_string starts inside the indentation, added lines follow it",
    category: "anchors",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit(
        "lib/cors.js",
        "  var origin = req.headers.origin;",
        "  var origin = req.headers.origin;\n  if (!origin) return next();",
      ),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace(
        "    var origin = req.headers.origin;\n",
        "    var origin = req.headers.origin;\n    if (!origin) return next();\n",
      ),
    },
  },
  {
    name: "old_string starts after the indentation and new lines carry their full indentation",
    category: "anchors",
    files: { "ci.yml": yamlSteps },
    calls: [
      read("ci.yml"),
      edit("ci.yml", "- run: npm test", "- run: npm test\n      - run: npm run lint"),
    ],
    expect: { "ci.yml": `${yamlSteps}      - run: npm run lint\n` },
  },
  {
    name: "old_string starts after the indentation and new lines are flush left: refused",
    category: "anchors",
    files: { "ci.yml": yamlSteps },
    calls: [
      read("ci.yml"),
      fails(
        edit("ci.yml", "- run: npm test", "- run: npm test\n- run: npm run lint"),
        "old_string starts after the indentation of line 5",
        "Start old_string at the beginning of line 5",
        "full indentation",
      ),
    ],
  },
  {
    name: "refused, then retried from the start of the line",
    category: "anchors",
    files: { "ci.yml": yamlSteps },
    calls: [
      read("ci.yml"),
      fails(
        edit("ci.yml", "- run: npm ci", "- run: npm ci\n- run: npm run build"),
        "indentation of line 4",
      ),
      edit("ci.yml", "      - run: npm ci\n", "      - run: npm ci\n      - run: npm run build\n"),
    ],
    expect: {
      "ci.yml": yamlSteps.replace(
        "      - run: npm ci\n",
        "      - run: npm ci\n      - run: npm run build\n",
      ),
    },
  },
  {
    name: "tab indentation: a dedented addition is refused",
    category: "anchors",
    files: { Makefile: "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n" },
    calls: [
      read("Makefile"),
      fails(edit("Makefile", "go test ./...", "go test ./...\nlint:"), "1 tab", "line 5"),
    ],
  },
  {
    name: "replace_all re-indents each place by its own indentation",
    category: "anchors",
    files: { "a.py": "def f():\n    log()\n\nclass A:\n    def g(self):\n        log()\n" },
    calls: [
      read("a.py"),
      shows(
        edit("a.py", " log()", " log()\n flush()", { replace_all: true }),
        "replaced 2 occurrences",
      ),
    ],
    expect: {
      "a.py":
        "def f():\n    log()\n    flush()\n\nclass A:\n    def g(self):\n        log()\n        flush()\n",
    },
  },
  {
    name: "several lines from after the indentation, a line put before the anchor from column 0: refused",
    category: "anchors",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      fails(
        edit(
          "lib/cors.js",
          "if (req.method === 'OPTIONS') {\n      res.setHeader('Access-Control-Max-Age', String(maxAge));",
          "var preflight = req.method === 'OPTIONS';\nif (req.method === 'OPTIONS') {\n      res.setHeader('Access-Control-Max-Age', String(maxAge));",
        ),
        "old_string starts after the indentation of line 16 (4 spaces before it)",
        "Start old_string at the beginning of line 16",
      ),
    ],
  },
  {
    name: "several lines from after the indentation, later lines with full indentation: as written",
    category: "anchors",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit(
        "lib/cors.js",
        "next();\n  };\n};",
        "next();\n  };\n};\n\nmodule.exports.defaults = { maxAge: 600 };",
      ),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace(
        "    next();\n  };\n};\n",
        "    next();\n  };\n};\n\nmodule.exports.defaults = { maxAge: 600 };\n",
      ),
    },
  },
  {
    name: "an anchor at column 0 adds lines exactly as written",
    category: "anchors",
    files: { "server.js": lfServer },
    calls: [
      read("server.js"),
      edit(
        "server.js",
        "var app = express();",
        "var app = express();\napp.disable('x-powered-by');",
      ),
    ],
    expect: {
      "server.js": lfServer.replace(
        "var app = express();",
        "var app = express();\napp.disable('x-powered-by');",
      ),
    },
  },
  {
    name: "a mid-line anchor adds lines exactly as written",
    category: "anchors",
    files: { "lib/cors.js": corsMiddleware },
    calls: [
      read("lib/cors.js"),
      edit("lib/cors.js", "String(maxAge));", "String(\n        maxAge,\n      ));"),
    ],
    expect: {
      "lib/cors.js": corsMiddleware.replace(
        "String(maxAge));",
        "String(\n        maxAge,\n      ));",
      ),
    },
  },
];

export const basicEdits: CorpusCase[] = [...exact, ...replaceAll, ...multiLine, ...anchors];
