import { afterAll, beforeAll, expect } from "vitest";
import { evaluate, type PolicyRules } from "../../../src/agent/policy/policy.js";
import { makePolicyWorkspace, type PolicyWorkspace } from "./workspace.js";

export type Verdict = "allow" | "deny";
/** [command, read-only, default, trusted, a phrase the default (or first) denial must contain] */
export type Row = [string, Verdict, Verdict, Verdict, string?];

const PRESETS = ["read-only", "default", "trusted"] as const;

/**
 * Loads the three presets over one shared workspace (hooks registered for
 * the calling test file) and returns the check every row goes through.
 */
export function useShellRows(): (row: Row) => void {
  let workspace: PolicyWorkspace;
  const presets: Partial<Record<(typeof PRESETS)[number], PolicyRules>> = {};
  beforeAll(async () => {
    workspace = await makePolicyWorkspace();
    for (const preset of PRESETS) presets[preset] = await workspace.rules({ preset });
  });
  afterAll(() => workspace.remove());

  const shell = (command: string, rules: PolicyRules | undefined) => {
    if (!rules) throw new Error("rules not loaded");
    return evaluate({ tool: "run_shell", input: { command } }, rules);
  };

  return ([command, readOnly, byDefault, trusted, phrase]) => {
    const results = {
      "read-only": shell(command, presets["read-only"]),
      default: shell(command, presets.default),
      trusted: shell(command, presets.trusted),
    };
    expect({
      "read-only": results["read-only"].allow,
      default: results.default.allow,
      trusted: results.trusted.allow,
    }).toEqual({
      "read-only": readOnly === "allow",
      default: byDefault === "allow",
      trusted: trusted === "allow",
    });
    if (phrase) {
      const denial = [results.default, results["read-only"], results.trusted].find((r) => !r.allow);
      expect(denial && !denial.allow ? denial.reason : "").toContain(phrase);
    }
  };
}
