import type { ScriptData } from "../../src/agent/model/script.js";
import { callTool, reply } from "./model-script.js";

/**
 * The repository and scripted job from the report of pushed commits that
 * reverted the agent's fix: `sum()` subtracts, the fix keeps the file's size,
 * `npm test` runs in between (the shell call whose change tracking went
 * wrong), then the README is edited.
 */
export const CALC_FILES: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "calc", private: true, scripts: { test: "node test.js" } })}\n`,
  "src/sum.js": "function sum(a, b) {\n  return a - b;\n}\nmodule.exports = { sum };\n",
  "test.js":
    "const assert = require('node:assert');\nconst { sum } = require('./src/sum.js');\nassert.strictEqual(sum(2, 3), 5);\nconsole.log('ok');\n",
  "README.md": "# calc\n\nAdds numbers.\n",
};

export const CALC_FIXED_SUM =
  "function sum(a, b) {\n  return a + b;\n}\nmodule.exports = { sum };\n";

/** `test` is the shell call between the edits: `npm test`, or what it runs. */
export function calcFixSteps(test: "npm test" | "node test.js" = "npm test"): ScriptData[] {
  return [
    callTool("read_file", { file_path: "src/sum.js" }),
    callTool(
      "edit_file",
      { file_path: "src/sum.js", old_string: "return a - b;", new_string: "return a + b;" },
      { say: "Fix sum: it subtracted." },
    ),
    callTool("run_shell", { command: test }),
    callTool("read_file", { file_path: "README.md" }),
    callTool(
      "edit_file",
      {
        file_path: "README.md",
        old_string: "Adds numbers.",
        new_string: "Adds numbers: `sum(2, 3)` is 5.",
      },
      { say: "Document the behaviour." },
    ),
    reply("Fixed sum() in src/sum.js (it subtracted) and documented it in the README."),
  ];
}
