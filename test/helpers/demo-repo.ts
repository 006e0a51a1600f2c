import type { ScriptData } from "../../src/agent/model/script.js";
import { callTool, reply } from "./model-script.js";

/**
 * The small repository most job tests use: `add()` subtracts, and
 * `npm test` says so. The scripted fix reads the file, edits it and reports.
 */
export const ADD_BUG_FILES: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "demo",
    private: true,
    scripts: { test: "node test.js" },
  }),
  "src/add.js": "module.exports = { add: (a, b) => a - b };\n",
  "test.js":
    "const assert = require('node:assert');\nassert.strictEqual(require('./src/add.js').add(2, 3), 5);\nconsole.log('tests passed');\n",
};

export const FIXED_ADD = "module.exports = { add: (a, b) => a + b };\n";

export function fixAddSteps(): ScriptData[] {
  return [
    callTool("read_file", { file_path: "src/add.js" }),
    callTool(
      "edit_file",
      { file_path: "src/add.js", old_string: "a - b", new_string: "a + b" },
      { say: "Fix add: it subtracted." },
    ),
    reply("Fixed add() in src/add.js: it subtracted instead of adding."),
  ];
}
