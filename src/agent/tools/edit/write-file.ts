import { defineTool, runOnFirstCall } from "../define-tool.js";
import { INPUT_SCHEMAS } from "../input-schemas.js";
import { writeFileInput } from "./write-file-input.js";

export const writeFileTool = defineTool({
  name: "write_file",
  kind: "write",
  pathFields: ["file_path"],
  description: [
    "Writes a whole file: creates it (and any missing folders) or replaces all of its content.",
    "Use it for new files and full rewrites; prefer edit_file for changing part of an existing file.",
    "An existing file must have been read with read_file first and not changed since; its CRLF line endings and byte order mark are kept.",
  ].join(" "),
  input: writeFileInput,
  inputJsonSchema: INPUT_SCHEMAS.write_file,
  summarize: (args) => `write_file ${args.file_path}`,
  run: runOnFirstCall(() => import("../tools-work.js").then((work) => work.writeFileRun)),
});
