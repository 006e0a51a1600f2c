import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir.js";
import { runMain } from "./fake-io.js";

const API_KEY = "sk-ant-test-key-0123456789abcdef";

async function packageVersion(): Promise<string> {
  const json = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
  return json.version;
}

describe("patchwright's command line", () => {
  it.each([[["--version"]], [["run", "--version"]], [["deps", "--version"]]])(
    "%j prints the package's version",
    async (argv) => {
      const { code, stdout, stderr } = await runMain(argv);
      expect({ code, stdout, stderr }).toEqual({
        code: 0,
        stdout: `${await packageVersion()}\n`,
        stderr: "",
      });
    },
  );

  it("reports every bad flag or path in one line, exit 2, before asking for the API key", async () => {
    const home = await makeTempDir();
    const notARepo = join(home, "plain");
    await mkdir(notARepo);
    const cases: Array<[string[], string]> = [
      [["run", "t", "--cwd", "/no/such/dir"], "--cwd /no/such/dir: no such directory"],
      [["run", "t", "--repo", "/nonexistent.git"], "--repo /nonexistent.git: no such directory"],
      [["run", "t", "--repo", notARepo], `--repo ${notARepo}: not a git repository`],
      [["run", "t", "--repo", home, "--cwd", home], "--cwd and --repo do not go together"],
      [["run", "t", "--repo", home, "--verify-timeout", "soon"], "--verify-timeout must be"],
      [["run", "t", "--foo"], "unknown option --foo; see patchwright --help"],
      [["deps", "--foo"], "unknown option --foo; see patchwright deps --help"],
      [["deps", "extra"], 'unexpected argument "extra"; see patchwright deps --help'],
      [["run", "t", "--allow", "make *"], '--allow rule "make *": unknown tool "make *"'],
      [["run", "t", "--deny", "edit_file: /etc/**"], 'drop the leading "/"'],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await runMain(argv, { env: { HOME: home } });
      expect({ argv, code, stdout }).toEqual({ argv, code: 2, stdout: "" });
      expect(stderr).toMatch(/^patchwright: [^\n]+\n$/);
      expect(stderr).toContain(message);
    }
  });

  it("builds deps' model from the config's provider, and names the provider's missing setting", async () => {
    const home = await makeTempDir();
    const project = join(home, "project");
    await mkdir(join(project, ".github"), { recursive: true });
    await writeFile(join(project, "package.json"), '{"name":"p","version":"1.0.0"}\n');
    await writeFile(join(project, ".github", "patchwright.yml"), "model: openai/gpt-x\n");
    // An Anthropic key is no use to an OpenAI model, and is not asked for.
    const { code, stdout, stderr } = await runMain(["deps", "--cwd", project], {
      env: { HOME: home, ANTHROPIC_API_KEY: API_KEY, PATH: process.env.PATH },
    });
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toMatch(/^patchwright: [^\n]*OPENAI_API_KEY[^\n]*\n$/);
    expect(stderr).not.toContain("ANTHROPIC_API_KEY");
  });

  it("refuses a --repo that is not there without writing a transcript", async () => {
    const home = await makeTempDir();
    const { code, stderr } = await runMain(["run", "t", "--repo", "/nonexistent.git"], {
      env: { HOME: home, ANTHROPIC_API_KEY: API_KEY, PATH: process.env.PATH },
    });
    expect(code).toBe(2);
    expect(stderr).toBe("patchwright: --repo /nonexistent.git: no such directory\n");
    expect(existsSync(join(home, ".local"))).toBe(false);
  });

  it("does not probe a URL: the clone reports what is wrong with it", async () => {
    const home = await makeTempDir();
    const { code, stderr } = await runMain(["run", "t", "--repo", "file:///nonexistent.git"], {
      env: { HOME: home, PATH: process.env.PATH },
    });
    expect(code).toBe(2);
    expect(stderr).toContain("ANTHROPIC_API_KEY is not set");
  });

  it("refuses to start a worker in one line that names the setting, exit 1", async () => {
    const home = await makeTempDir();
    const file = join(home, "not-a-folder");
    await writeFile(file, "");
    const redis = { REDIS_URL: "redis://127.0.0.1:6379" };
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "the worker takes its jobs from Redis: set REDIS_URL"],
      [redis, "set APP_ID and PRIVATE_KEY"],
      [
        { PATCHWRIGHT_MAX_ATTEMPTS: "none" },
        'PATCHWRIGHT_MAX_ATTEMPTS: expected a whole number above 0, got "none"',
      ],
      [
        { ...redis, APP_ID: "1", PRIVATE_KEY: "key", PATCHWRIGHT_CACHE_DIR: file },
        `the cache folder ${file} cannot be used: it is a file, not a folder. Set PATCHWRIGHT_CACHE_DIR`,
      ],
    ];
    for (const [env, message] of cases) {
      const { code, stdout, stderr } = await runMain(["worker"], { env: { HOME: home, ...env } });
      expect({ env, code, stdout }).toEqual({ env, code: 1, stdout: "" });
      expect(stderr).toMatch(/^patchwright cannot start: [^\n]+\n$/);
      expect(stderr).toContain(message);
    }
    // Where it stopped, only when asked for.
    const debug = await runMain(["worker"], { env: { HOME: home, LOG_LEVEL: "debug" } });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at .+:\d+:\d+/);
  });

  it("refuses a run whose cache folder is a file before anything runs, exit 1", async () => {
    const home = await makeTempDir();
    const file = join(home, "not-a-folder");
    await writeFile(file, "");
    const repo = join(home, "repo.git");
    execFileSync("git", ["init", "--quiet", "--bare", repo]);
    const { code, stderr } = await runMain(["run", "t", "--repo", repo, "--cache-dir", file], {
      env: { HOME: home, ANTHROPIC_API_KEY: API_KEY, PATH: process.env.PATH },
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `patchwright cannot start: the cache folder ${file} cannot be used: it is a file, not a folder. Pass --cache-dir a folder you can write.\n`,
    );
    // Nothing ran: no transcript.
    expect(existsSync(join(home, ".local"))).toBe(false);
  });
});
