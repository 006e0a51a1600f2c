import type { AnyTool } from "./define-tool.js";
import { editFileTool } from "./edit-file.js";
import { grepSearchTool } from "./grep-search.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { runShellTool } from "./run-shell.js";
import { writeFileTool } from "./write-file.js";

/** The agent's tools, in the order the model sees them. */
export function defaultTools(): AnyTool[] {
  return [readFileTool, writeFileTool, editFileTool, listFilesTool, grepSearchTool, runShellTool];
}
