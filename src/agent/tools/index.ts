import type { AnyTool } from "./define-tool.js";
import { editFileTool } from "./edit/edit-file.js";
import { writeFileTool } from "./edit/write-file.js";
import { listFilesTool } from "./fs/list-files.js";
import { readFileTool } from "./fs/read-file.js";
import { grepSearchTool } from "./grep/grep-search.js";
import { runShellTool } from "./run-shell.js";

/** The agent's tools, in the order the model sees them. */
export function defaultTools(): AnyTool[] {
  return [readFileTool, writeFileTool, editFileTool, listFilesTool, grepSearchTool, runShellTool];
}
