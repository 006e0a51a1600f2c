import { defineTool, runOnFirstCall } from "../define-tool.js";
import { INPUT_SCHEMAS } from "../input-schemas.js";
import { editFileInput } from "./edit-file-input.js";

export const editFileTool = defineTool({
  name: "edit_file",
  kind: "write",
  pathFields: ["file_path"],
  description: [
    "Replaces an exact, literal piece of text in a file (no regular expressions).",
    "old_string must occur exactly once unless replace_all is true; whitespace and indentation must match.",
    "The file must have been read with read_file first and not changed since.",
    "Line endings are kept as the file has them. Returns a short diff of the change.",
  ].join(" "),
  input: editFileInput,
  inputJsonSchema: INPUT_SCHEMAS.edit_file,
  summarize: (args) => `edit_file ${args.file_path}`,
  run: runOnFirstCall(() => import("../tools-work.js").then((work) => work.editFileRun)),
});
