import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL, parseCommand, USAGE } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/usage-error.js";

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
        verbose: false,
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
      "--network must be off, on, public, or a comma-separated list of hosts",
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
        "--verify-timeout",
        "90s",
        "--verbose",
      ],
      "/here",
    );
    expect(command.kind === "run" && command.args).toMatchObject({
      verifyTimeoutSeconds: 90,
      verbose: true,
      repo: "../r",
      base: "dev",
      verify: "npm test",
      setup: ["npm ci", "make"],
      squash: true,
      push: false,
      cacheDir: "/c",
    });
  });

  it.each([
    ["15m", 900],
    ["1h", 3600],
    ["20", 1200],
  ])("reads --verify-timeout %s as %i seconds (a bare number is minutes)", (text, seconds) => {
    const command = parseCommand(["run", "t", "--repo", "r", "--verify-timeout", text], "/");
    expect(command.kind === "run" && command.args.verifyTimeoutSeconds).toBe(seconds);
  });

  it("fills defaults, leaving the model and the preset to the config (see run-command)", () => {
    const command = parseCommand(["run", "task"], "/here");
    expect(command.kind === "run" && command.args).toMatchObject({
      cwd: "/here",
      maxTurns: 50,
      json: false,
    });
    expect(command.kind === "run" && command.args.model).toBeUndefined();
    expect(command.kind === "run" && command.args.policy).toBeUndefined();
    expect(USAGE).toContain(`else ${DEFAULT_MODEL})`);
  });

  it("takes provider models, MCP tool rules and an MCP config file", () => {
    const command = parseCommand(
      [
        "run",
        "t",
        "--model",
        "openai/gpt-4.1",
        "--allow",
        "mcp__tickets__close_ticket",
        "--mcp-config",
        ".mcp.json",
      ],
      "/here",
    );
    expect(command.kind === "run" && command.args).toMatchObject({
      model: "openai/gpt-4.1",
      allow: ["mcp__tickets__close_ticket"],
      mcpConfig: ".mcp.json",
    });
    expect(() => parseCommand(["run", "t", "--model", "azure/gpt-4.1"], "/")).toThrow(
      /^--model model "azure\/gpt-4.1": unknown provider "azure"/,
    );
    expect(() => parseCommand(["run", "t", "--allow", "mcp__tickets: x"], "/")).toThrow(
      /unknown tool "mcp__tickets"/,
    );
  });

  it.each([
    [["run"], /give the task in quotes/],
    [["run", "a", "b"], /put the task in quotes/],
    [["run", "t", "--max-turns", "abc"], /--max-turns must be a number/],
    [["run", "t", "--max-turns", "0"], /--max-turns must be above 0/],
    [["run", "t", "--policy", "yolo"], /--policy must be read-only, default or trusted/],
    [["deploy"], /unknown command "deploy"/],
    [["run", "t", "--verify", "npm test"], /--verify works with --repo/],
    [["run", "t", "--verify-timeout", "5m"], /--verify-timeout works with --repo/],
    [
      ["run", "t", "--repo", "r", "--verify-timeout", "soon"],
      /--verify-timeout must be a duration such as 90s, 15m or 1h \(a bare number is minutes\)/,
    ],
    [["run", "t", "--repo", "r", "--verify-timeout", "0"], /--verify-timeout must be a duration/],
    [["run", "t", "--repo", "r", "--cwd", "d"], /--cwd and --repo do not go together/],
    [
      ["run", "t", "--allow", "bash: make*"],
      /^--allow rule "bash: make\*": unknown tool "bash"; write "tool: pattern"/,
    ],
    [
      ["run", "t", "--allow", "run_shell:"],
      /^--allow rule "run_shell:": the pattern after ":" is empty/,
    ],
    [
      ["run", "t", "--deny", "edit_file: ../secrets/**"],
      /^--deny rule .*cannot leave the workspace/,
    ],
    [
      ["run", "t", "--allow", "read_file", "--deny", "write_file: ~/x"],
      /^--deny rule "write_file: ~\/x": path patterns are relative to the workspace root/,
    ],
  ])("rejects %j with a one-line reason", (argv, message) => {
    expect(() => parseCommand(argv, "/here")).toThrow(UsageError);
    expect(() => parseCommand(argv, "/here")).toThrow(message);
  });

  it.each([
    [["run", "t", "--bogus"], "unknown option --bogus; see patchwright --help"],
    [["run", "t", "--bogus=1"], "unknown option --bogus; see patchwright --help"],
    [["run", "t", "-x"], "unknown option -x; see patchwright --help"],
    [["--bogus"], "unknown option --bogus; see patchwright --help"],
    [["run", "t", "--cwd"], "--cwd needs a value; see patchwright --help"],
    [["run", "t", "--cwd", "--json"], "--cwd needs a value; see patchwright --help"],
    [["run", "t", "--json=yes"], "--json takes no value; see patchwright --help"],
  ])("answers %j in our words, not Node's", (argv, message) => {
    let thrown: unknown;
    try {
      parseCommand(argv, "/here");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toBe(message);
  });

  it("shows help and the version", () => {
    expect(parseCommand([], "/").kind).toBe("help");
    expect(parseCommand(["run", "--help"], "/").kind).toBe("help");
    expect(parseCommand(["--version"], "/").kind).toBe("version");
    expect(parseCommand(["run", "--version"], "/").kind).toBe("version");
  });
});
