import { describe, expect, it } from "vitest";
import { depsModeEvents } from "../../src/action/deps-mode.js";

/**
 * `mode: deps` in the workflow log: the steps, and the agent's work on a
 * broken group as a prompt's job shows it, where the log showed the steps
 * alone (minutes of an agent at work, or of retries to an unreachable
 * model, under one step line).
 */

describe("the deps mode's log", () => {
  it("shows each step, and what the agent says, runs and retries, and why it stopped", () => {
    const lines: string[] = [];
    const events = depsModeEvents((message) => lines.push(message));
    events.step("Running the agent on the breakage");
    events.step("Installing: `npm ci`", "network: registry.example cannot be resolved (ENOTFOUND)");
    events.agent({ type: "text", turn: 1, text: "fx-greet 2 renamed greet() to hello()." });
    events.agent({
      type: "tool_call",
      turn: 1,
      id: "t1",
      name: "run_shell",
      input: { command: "npm test" },
      summary: "run_shell npm test",
    });
    events.agent({
      type: "retry",
      turn: 2,
      attempt: 1,
      delayMs: 500,
      reason: "connection error: getaddrinfo ENOTFOUND api.anthropic.com",
    });
    expect(lines).toEqual([
      "Running the agent on the breakage",
      "  ⚠ network: registry.example cannot be resolved (ENOTFOUND)",
      "fx-greet 2 renamed greet() to hello().",
      "  → run_shell npm test",
      "  (retrying the model request: connection error: getaddrinfo ENOTFOUND api.anthropic.com)",
    ]);
  });
});
