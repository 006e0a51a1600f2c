import { describe, expect, it } from "vitest";
import { inputJsonSchemaOf, toToolSpec } from "../../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { INPUT_SCHEMAS } from "../../../src/agent/tools/input-schemas.js";
import { createRunShellTool } from "../../../src/agent/tools/run-shell.js";

/**
 * The built-in tools show the model JSON Schemas made ahead
 * (src/agent/tools/input-schemas.ts, `npm run tool-schemas`) instead of
 * converting their zod inputs on the way to the first model request: those
 * must be what the conversion gives, or the model is told one input and the
 * tool checks another.
 */
describe("the built-in tools' input schemas, made ahead", () => {
  it("are what zod makes of each tool's input, for every built-in tool and no other", () => {
    const tools = defaultTools();
    for (const tool of tools) {
      expect(tool.inputJsonSchema, `${tool.name}: run \`npm run tool-schemas\``).toEqual(
        inputJsonSchemaOf(tool.input),
      );
    }
    expect(Object.keys(INPUT_SCHEMAS).sort()).toEqual(tools.map((tool) => tool.name).sort());
  });

  it("are what the model is shown, also for a shell tool made with other options", () => {
    const shell = createRunShellTool({ shell: "/bin/sh" });
    expect(toToolSpec(shell).input_schema).toBe(INPUT_SCHEMAS.run_shell);
    for (const tool of defaultTools()) {
      expect(toToolSpec(tool).input_schema).toEqual(inputJsonSchemaOf(tool.input));
    }
  });
});
