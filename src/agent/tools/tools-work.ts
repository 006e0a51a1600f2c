/**
 * The built-in tools' work, in one module that the first call of any of
 * them loads (define-tool.ts runOnFirstCall). One module, not one per tool:
 * the Action's bundle gives each module a dynamic import reaches a chunk of
 * its own, and splits the code those modules share with the start into
 * further chunks. Six imports made the start load 46 files instead of 31,
 * and the start paid for each file what it saved in code.
 */
export { editFileRun } from "./edit/edit-file-run.js";
export { writeFileRun } from "./edit/write-file-run.js";
export { listFilesRun } from "./fs/list-files-run.js";
export { readFileRun } from "./fs/read-file-run.js";
export { grepSearchRun } from "./grep/grep-search-run.js";
export { runShellRun } from "./run-shell-run.js";
