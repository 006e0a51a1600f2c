import { defineTool, runOnFirstCall } from "../define-tool.js";
import { INPUT_SCHEMAS } from "../input-schemas.js";
import {
  DEFAULT_READ_LIMIT,
  MAX_LINE_CHARS,
  MAX_SHOWN_CHARS,
  readFileInput,
} from "./read-file-input.js";
import { MAX_TEXT_FILE_BYTES } from "./text-file.js";

export const readFileTool = defineTool({
  name: "read_file",
  description: [
    "Reads a text file from the workspace and returns its lines numbered as `     7 | text`.",
    "The numbers and the ` | ` separator are not part of the file: leave them out of edit_file's old_string.",
    `Returns at most ${DEFAULT_READ_LIMIT} lines (and about ${MAX_SHOWN_CHARS} characters) by default; use offset/limit to read further in long files.`,
    `Lines longer than ${MAX_LINE_CHARS} characters are cut (the note says which). Binary files are refused; files over ${MAX_TEXT_FILE_BYTES / 1024 / 1024} MB are read in parts with offset/limit.`,
    "A file must be read before edit_file or write_file may change it, and read again after a command changed it.",
  ].join(" "),
  input: readFileInput,
  inputJsonSchema: INPUT_SCHEMAS.read_file,
  kind: "read",
  pathFields: ["file_path"],
  concurrencySafe: true,
  summarize: (args) => `read_file ${args.file_path}`,
  run: runOnFirstCall(() => import("../tools-work.js").then((work) => work.readFileRun)),
});
