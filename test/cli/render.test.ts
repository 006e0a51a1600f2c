import { describe, expect, it } from "vitest";
import { createColors } from "../../src/cli/colors.js";
import { createHumanRenderer, renderDiff, renderTotals, toJsonLine } from "../../src/cli/render.js";

describe("CLI rendering", () => {
  it("streams text, one line per tool call, errors and a stop line", () => {
    let out = "";
    const spinner = {
      started: [] as string[],
      stopped: 0,
      start(text: string) {
        this.started.push(text);
      },
      stop() {
        this.stopped++;
      },
    };
    const render = createHumanRenderer({
      write: (t) => {
        out += t;
      },
      colors: createColors(false),
      spinner,
    });
    render({ type: "turn_start", turn: 1 });
    render({ type: "text_delta", turn: 1, text: "Looking at " });
    render({ type: "text_delta", turn: 1, text: "the test" });
    render({
      type: "tool_call",
      turn: 1,
      id: "a",
      name: "run_shell",
      input: {},
      summary: "run_shell npm test",
    });
    render({
      type: "tool_result",
      turn: 1,
      id: "a",
      name: "run_shell",
      content: "exit code: 1\nboom",
      isError: false,
      durationMs: 5,
    });
    render({
      type: "tool_result",
      turn: 1,
      id: "b",
      name: "edit_file",
      content: "no match for old_string",
      isError: true,
      durationMs: 1,
    });
    render({ type: "stop", reason: "max_cost", turns: 4 });
    expect(out).toBe(
      "Looking at the test\n› run_shell npm test\n  exit code: 1\n  ✗ no match for old_string\nstopped (max_cost) after 4 turns\n",
    );
    // The model's wait, then the command's run, each on the status line.
    expect(spinner.started).toEqual(["turn 1: waiting for the model", "run_shell npm test"]);
    expect(spinner.stopped).toBeGreaterThan(0);
  });

  it("says 1 turn, not 1 turns", () => {
    let out = "";
    const render = createHumanRenderer({
      write: (t) => {
        out += t;
      },
      colors: createColors(false),
      spinner: { start() {}, stop() {} },
    });
    render({ type: "stop", reason: "end_turn", turns: 1 });
    render({ type: "stop", reason: "max_turns", turns: 1 });
    expect(out).toBe("done after 1 turn\nstopped (max_turns) after 1 turn\n");
  });

  it("with --verbose, prints the last lines of a command's output under it", () => {
    const output = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`).join("\n");
    const shellResult = (content: string) =>
      ({
        type: "tool_result",
        turn: 1,
        id: "a",
        name: "run_shell",
        content,
        isError: false,
        durationMs: 5,
      }) as const;
    const outputs = [false, true].map((verbose) => {
      let out = "";
      const render = createHumanRenderer({
        write: (t) => {
          out += t;
        },
        colors: createColors(false),
        spinner: { start() {}, stop() {} },
        verbose,
      });
      render(shellResult(`exit code: 1\nstdout:\n${output}`));
      render(shellResult("exit code: 0\n(no output)"));
      return out;
    });
    expect(outputs[0]).toBe("  exit code: 1\n  exit code: 0\n");
    expect(outputs[1]).toBe(
      [
        "  exit code: 1",
        "    … 5 earlier lines",
        ...Array.from({ length: 10 }, (_, i) => `    line ${i + 5}`),
        "  exit code: 0",
        "    (no output)",
        "",
      ].join("\n"),
    );
  });

  it("renders an edit as a coloured unified diff", () => {
    const diff = renderDiff(
      "src/a.ts",
      Buffer.from("one\ntwo\n"),
      Buffer.from("one\n2\n"),
      createColors(true),
    );
    expect(diff).toContain("\u001b[31m-two\u001b[39m");
    expect(diff).toContain("\u001b[32m+2\u001b[39m");
    expect(diff).toContain("a/src/a.ts");
    expect(renderDiff("img.png", null, Buffer.from([0, 1, 2]), createColors(false))).toBe(
      "  img.png (binary)",
    );
  });

  it("prints totals and JSON lines without file contents", () => {
    const totals = renderTotals({
      turns: 3,
      usage: { inputTokens: 1234, outputTokens: 56, cacheReadTokens: 7000, cacheWriteTokens: 800 },
      costUsd: 0.01234,
      durationMs: 4200,
    });
    expect(totals).toContain("turns: 3");
    expect(totals).toContain("1,234 in, 56 out, 7,000 cache read, 800 cache write");
    expect(totals).toContain("cost: $0.0123");
    const line = JSON.parse(
      toJsonLine({
        type: "file_change",
        turn: 1,
        toolCallId: "x",
        path: "a",
        before: null,
        after: Buffer.from("secret body"),
      }),
    );
    expect(line).toEqual({
      type: "file_change",
      turn: 1,
      toolCallId: "x",
      path: "a",
      beforeBytes: null,
      afterBytes: 11,
    });
  });
});
