import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { compiled } from "../helpers/source-build.js";

/**
 * What `npm start` loads before it serves: with the embedded job store,
 * neither BullMQ's Redis client nor the dependency job's registry client
 * (service/open-queue.ts, service/job-kinds/deps.ts). They were about half
 * of the App's module loading on Node 20, on every start and deploy. Each
 * check runs in a Node of its own (this worker has loaded both long ago),
 * and then loads what would bring them in, so a check that cannot see them
 * fails too.
 */

const url = (source: string) => JSON.stringify(pathToFileURL(compiled(source)).href);

/** Runs `lines` as a module in a fresh Node; what it printed, parsed. */
function inFreshNode(lines: string[]): unknown {
  const ran = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      [
        'import Module from "node:module";',
        // ioredis and npm-registry-fetch are CommonJS: loaded, they are in the require cache.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: code for the fresh Node, which has the template
        "const loaded = (name) => Object.keys(Module._cache).some((path) => path.includes(`/node_modules/${name}/`));",
        ...lines,
      ].join("\n"),
    ],
    { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
  );
  expect(ran.stderr).toBe("");
  return JSON.parse(ran.stdout);
}

describe("the App's start", () => {
  it("loads no Redis client without REDIS_URL, and does when opening a Redis queue", () => {
    const seen = inFreshNode([
      `await import(${url("src/app/index.ts")});`,
      "const atStart = loaded('ioredis');",
      `const { openJobQueue } = await import(${url("src/service/open-queue.ts")});`,
      // A port nothing listens on: the refusal still names the setting.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: code for the fresh Node, which has the template
      "const refusal = await openJobQueue({ redisUrl: 'redis://127.0.0.1:1', cacheDir: '/nonexistent', maxAttempts: 1, jobLockMs: 1000 }).then(() => 'opened', (error) => `${error.name}: ${error.message}`);",
      "console.log(JSON.stringify({ atStart, afterQueue: loaded('ioredis'), refusal }));",
    ]);
    expect(seen).toEqual({
      atStart: false,
      afterQueue: true,
      refusal: expect.stringMatching(
        /^StartupRefusal: the job queue's Redis at 127\.0\.0\.1:1 .*REDIS_URL/,
      ),
    });
  });

  it("loads the dependency job's registry client only with the job", () => {
    const seen = inFreshNode([
      `await import(${url("src/app/index.ts")});`,
      "const atStart = loaded('npm-registry-fetch');",
      `await import(${url("src/deps/run-deps-job.ts")});`,
      "console.log(JSON.stringify({ atStart, withJob: loaded('npm-registry-fetch') }));",
    ]);
    expect(seen).toEqual({ atStart: false, withJob: true });
  });
});
