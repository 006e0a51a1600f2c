import { defineTool, runOnFirstCall } from "../define-tool.js";
import { INPUT_SCHEMAS } from "../input-schemas.js";
import { MAX_MATCHES } from "./grep-matches.js";
import { grepSearchInput } from "./grep-search-input.js";

export const grepSearchTool = defineTool({
  name: "grep_search",
  description: [
    "Searches file contents one line at a time over the files git would see (.gitignore is honoured; binary files, node_modules and .git are skipped).",
    "The pattern is a JavaScript (ECMAScript) regular expression, with the same meaning in every workspace:",
    ". [...] [^...] \\d \\w \\s \\b (\\d and \\w are ASCII), * + ? {n,m} and their lazy forms, (...) (?:...) (?<name>...) | \\1 \\k<name>,",
    "lookahead (?=...) (?!...), lookbehind (?<=...) (?<!...), \\p{L}-style Unicode properties, \\t \\xHH \\u{HHHH}.",
    "^ and $ are the start and end of a line; a line never holds its line break, so \\n cannot match.",
    "Case-sensitive unless case_insensitive is true.",
    "Also taken, meaning exactly the same: a leading (?i), POSIX classes such as [[:alpha:]] (ASCII), \\h, \\A, \\z, \\< \\>, (?P<name>...), \\Q...\\E.",
    "Anything else (inline flags elsewhere, possessive or atomic groups, \\K, recursion) is refused with the rewrite to use; an invalid pattern is refused with where it is wrong.",
    `Returns matching lines as path:line:text, at most ${MAX_MATCHES}; narrow with path or include when there are more.`,
  ].join(" "),
  input: grepSearchInput,
  inputJsonSchema: INPUT_SCHEMAS.grep_search,
  kind: "search",
  pathFields: ["path"],
  globFields: ["include"],
  concurrencySafe: true,
  summarize: (args) => `grep_search ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
  run: runOnFirstCall(() => import("../tools-work.js").then((work) => work.grepSearchRun)),
});
