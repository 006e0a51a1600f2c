import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, ToolError } from "../../../src/agent/tools/define-tool.js";
import { describeFields, failureText } from "../../../src/agent/tools/tool-failure.js";

const tool = defineTool({
  name: "probe",
  description: "A tool for these tests",
  input: z.object({ file_path: z.string(), count: z.number().int().optional() }),
  summarize: () => "probe",
  run: async () => "",
});

const root = "/tmp/patchwright-ws-abc";

describe("failureText", () => {
  it("makes the workspace's own paths relative in a tool's message", () => {
    expect(failureText(tool, new ToolError(`cannot open ${root}/src/a.ts in ${root}`), root)).toBe(
      "cannot open src/a.ts in .",
    );
  });

  it("names a file-system error's path relative to the workspace, with what to do", async () => {
    const error = await readFile(join(root, "src/missing.ts")).catch((e: unknown) => e);
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${root}/src/a.ts'`), {
      code: "EACCES",
      path: `${root}/src/a.ts`,
    });
    expect(failureText(tool, error, root)).toBe(
      "probe failed: ENOENT: no such file or directory, open 'src/missing.ts'",
    );
    expect(failureText(tool, denied, root)).toBe(
      "probe failed: EACCES: permission denied, open 'src/a.ts'; permission denied: check the file's permissions with run_shell (`ls -l`)",
    );
  });

  it("never names a host path outside the workspace", () => {
    const error = Object.assign(new Error("ELOOP: too many symbolic links, stat '/home/me/x'"), {
      code: "ELOOP",
      path: "/home/me/x",
    });
    const text = failureText(tool, error, root);
    expect(text).not.toContain("/home/me");
    expect(text).toContain("(a path outside the workspace)");
  });

  it("does not touch a path that merely starts like the root", () => {
    const message = `${root}-other/file and ${root}/file in ${root}.`;
    expect(failureText(tool, new ToolError(message), root)).toBe(
      `${root}-other/file and file in ..`,
    );
  });
});

describe("describeFields", () => {
  it("lists every field with its type, marking the optional ones", () => {
    expect(describeFields(tool)).toBe(
      "probe takes: file_path (string), count (integer, optional).",
    );
  });
});
