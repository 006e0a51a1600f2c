import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAINTENANCE_EVERY_MS, maintainMirror } from "../../src/git/mirror.js";
import { git, gitTestEnv, makeTempDir, type TempDir } from "../helpers/git-repos.js";

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

describe("a mirror's housekeeping", () => {
  it("runs git maintenance after a job at most once per interval", async () => {
    const tmp = makeTempDir("pw-maintain-");
    dirs.push(tmp);
    const env = gitTestEnv(join(tmp.path, "home"));
    const mirror = join(tmp.path, "mirror.git");
    git(tmp.path, ["init", "--bare", "--quiet", mirror], env);
    // git says in this file each time it runs a command.
    const trace = join(tmp.path, "trace.json");
    const traced = { ...env, GIT_TRACE2_EVENT: trace };
    const runs = () =>
      existsSync(trace)
        ? readFileSync(trace, "utf8")
            .split("\n")
            .filter((line) => line.includes('"event":"cmd_name"') && line.includes("maintenance"))
            .length
        : 0;

    const start = Date.now();
    await maintainMirror(mirror, traced, start);
    expect(runs()).toBe(1);
    await maintainMirror(mirror, traced, start + 1_000);
    await maintainMirror(mirror, traced, start + MAINTENANCE_EVERY_MS - 60_000);
    expect(runs()).toBe(1);
    await maintainMirror(mirror, traced, start + MAINTENANCE_EVERY_MS + 1_000);
    expect(runs()).toBe(2);
  });
});
