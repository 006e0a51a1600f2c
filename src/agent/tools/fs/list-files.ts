import { defineTool, runOnFirstCall } from "../define-tool.js";
import { INPUT_SCHEMAS } from "../input-schemas.js";
import { listFilesInput, MAX_LISTED_FILES } from "./list-files-input.js";

export const listFilesTool = defineTool({
  name: "list_files",
  description: [
    "Finds files by glob pattern among the files git would see (tracked and untracked; .gitignore is honoured, node_modules and .git are never listed).",
    "Patterns are matched against paths relative to `path` (or the workspace root); a pattern without a slash matches the file name at any depth.",
    `Returns matching paths relative to the workspace root, sorted, at most ${MAX_LISTED_FILES}.`,
  ].join(" "),
  input: listFilesInput,
  inputJsonSchema: INPUT_SCHEMAS.list_files,
  kind: "search",
  pathFields: ["path"],
  globFields: ["pattern"],
  concurrencySafe: true,
  summarize: (args) => `list_files ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
  run: runOnFirstCall(() => import("../tools-work.js").then((work) => work.listFilesRun)),
});
