import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL, parseCommand, UsageError } from "../../src/cli/args.js";

describe("CLI arguments", () => {
  it("parses a run with every flag", () => {
    const command = parseCommand(
      [
        "run",
        "fix it",
        "--cwd",
        "repo",
        "--model",
        "m",
        "--max-turns",
        "3",
        "--max-cost",
        "0.5",
        "--policy",
        "trusted",
        "--allow",
        "run_shell: make*",
        "--json",
        "--network",
        "registry.npmjs.org,*.github.com",
      ],
      "/here",
    );
    expect(command).toEqual({
      kind: "run",
      args: {
        task: "fix it",
        cwd: "repo",
        model: "m",
        maxTurns: 3,
        maxCostUsd: 0.5,
        maxMinutes: 30,
        policy: "trusted",
        allow: ["run_shell: make*"],
        deny: [],
        json: true,
        setup: [],
        squash: false,
        push: true,
        network: {
          kind: "hosts",
          hosts: [
            { host: "registry.npmjs.org", wildcard: false, port: undefined },
            { host: "github.com", wildcard: true, port: undefined },
          ],
        },
        setupNetwork: { kind: "on" },
      },
    });
  });

  it("refuses a network that is not off, on or hosts, in one line", () => {
    expect(() => parseCommand(["run", "t", "--network", "everything please"], "/x")).toThrow(
      "--network must be off, on, or a comma-separated list of hosts",
    );
  });

  it("parses the --repo job flags", () => {
    const command = parseCommand(
      [
        "run",
        "t",
        "--repo",
        "../r",
        "--base",
        "dev",
        "--verify",
        "npm test",
        "--setup",
        "npm ci",
        "--setup",
        "make",
        "--squash",
        "--no-push",
        "--cache-dir",
        "/c",
      ],
      "/here",
    );
    expect(command.kind === "run" && command.args).toMatchObject({
      repo: "../r",
      base: "dev",
      verify: "npm test",
      setup: ["npm ci", "make"],
      squash: true,
      push: false,
      cacheDir: "/c",
    });
  });

  it("fills defaults", () => {
    const command = parseCommand(["run", "task"], "/here");
    expect(command.kind === "run" && command.args).toMatchObject({
      cwd: "/here",
      model: DEFAULT_MODEL,
      maxTurns: 50,
      policy: "default",
      json: false,
    });
  });

  it.each([
    [["run"], /give the task in quotes/],
    [["run", "a", "b"], /put the task in quotes/],
    [["run", "t", "--max-turns", "abc"], /--max-turns must be a number/],
    [["run", "t", "--max-turns", "0"], /--max-turns must be above 0/],
    [["run", "t", "--policy", "yolo"], /--policy must be read-only, default or trusted/],
    [["run", "t", "--bogus"], /bogus/],
    [["deploy"], /unknown command "deploy"/],
    [["run", "t", "--verify", "npm test"], /--verify works with --repo/],
  ])("rejects %j with a one-line reason", (argv, message) => {
    expect(() => parseCommand(argv, "/here")).toThrow(UsageError);
    expect(() => parseCommand(argv, "/here")).toThrow(message);
  });

  it("shows help", () => {
    expect(parseCommand([], "/").kind).toBe("help");
    expect(parseCommand(["run", "--help"], "/").kind).toBe("help");
  });
});
