import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../../../src/agent/model/scripted.js";
import { runChange } from "../../../src/change/run-change.js";
import { defaultWorkRoot, hasDotSegment } from "../../../src/git/workspace/work-root.js";
import { createBareRepo, gitTestEnv, makeTempDir } from "../../helpers/git-repos.js";
import { callTool, reply } from "../../helpers/model-script.js";
import { realSandbox } from "../../helpers/sandbox.js";

/**
 * A test suite in the style of express's: it serves a fixture by its
 * absolute path and, like `send`, answers 404 when any segment of that path
 * starts with a dot. It fails in a workspace under `~/.cache/...`.
 */
const STATIC_FILES = {
  "package.json": `${JSON.stringify({ name: "static", private: true, scripts: { test: "node test.js" } })}\n`,
  "fixtures/name.txt": "tobi\n",
  "test.js": `const http = require("node:http");
const fs = require("node:fs");
const path = require("node:path");
function sendFile(res, file) {
  if (file.split(path.sep).some((part) => part.startsWith("."))) {
    res.statusCode = 404;
    return res.end("Not Found");
  }
  fs.createReadStream(file).pipe(res);
}
const server = http.createServer((req, res) => sendFile(res, path.resolve(__dirname, "fixtures/name.txt")));
server.listen(0, "127.0.0.1", () => {
  http.get({ port: server.address().port, host: "127.0.0.1" }, (res) => {
    let body = "";
    res.on("data", (chunk) => (body += chunk));
    res.on("end", () => {
      server.close();
      if (res.statusCode !== 200 || body !== "tobi\\n") {
        console.error("expected 200 tobi, got " + res.statusCode + " " + body);
        process.exit(1);
      }
      console.log("1 passing");
    });
  });
});
`,
};

describe("where workspaces live", () => {
  it("is the cache's work folder when it has no dot segment, else the temp dir, one folder per cache", () => {
    expect(defaultWorkRoot("/var/cache/patchwright", "/tmp")).toBe("/var/cache/patchwright/work");
    const a = defaultWorkRoot("/home/me/.cache/patchwright", "/tmp");
    const b = defaultWorkRoot("/home/you/.cache/patchwright", "/tmp");
    expect(a).toMatch(/^\/tmp\/patchwright-work\/[0-9a-f]{12}$/);
    expect(b).not.toBe(a);
    expect(defaultWorkRoot("/home/me/.cache/patchwright", "/home/me/.tmp")).toMatch(
      /^\/tmp\/patchwright-work\//,
    );
    expect(hasDotSegment("/home/me/.cache/x")).toBe(true);
    expect(hasDotSegment("/tmp/patchwright-work/ab12")).toBe(false);
  });

  it("lets an express-style static-file test pass in a default workspace under ~/.cache", async () => {
    const tmp = makeTempDir("pw-static-");
    try {
      const home = join(tmp.path, "home");
      const env = gitTestEnv(home);
      const repo = createBareRepo({ root: tmp.path, env, files: STATIC_FILES });
      const result = await runChange(
        {
          // The CLI's default: ~/.cache/patchwright.
          cacheDir: join(home, ".cache", "patchwright"),
          sandbox: await realSandbox(),
          secrets: [],
          envSource: env,
          clock: Date,
        },
        {
          cloneUrl: repo.url,
          baseBranch: "main",
          branchTitle: "static",
          branchPrefix: "agent/",
          task: "run the tests",
          model: createScriptedModel([
            callTool("write_file", { file_path: "NOTE.md", content: "note\n" }),
            reply("Added a note."),
          ]),
          policy: { preset: "default", allow: [], deny: [] },
          limits: { maxTurns: 5, maxCostUsd: 1, maxDurationMs: 60_000 },
          setup: [],
          verify: "npm test",
          network: { kind: "off" },
          setupNetwork: { kind: "off" },
          squash: false,
          identity: { name: "patchwright", email: "bot@example.com" },
          push: false,
        },
      );
      expect(result.error).toBeUndefined();
      expect(result.verify?.outputTail).toContain("1 passing");
      expect(result.verify?.passed).toBe(true);
    } finally {
      // The worktree lives outside the temporary folder, by design.
      rmSync(defaultWorkRoot(join(tmp.path, "home", ".cache", "patchwright")), {
        recursive: true,
        force: true,
      });
      tmp.remove();
    }
  });
});
