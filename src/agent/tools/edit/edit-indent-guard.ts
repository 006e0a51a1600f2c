/**
 * Files where a tab and spaces at the start of a line mean different
 * things: make runs only tab-indented recipe lines, YAML refuses tabs, and
 * Python refuses a block that mixes them. An edit that would break that is
 * refused before it is written, never done silently.
 */
export type IndentRule = "make" | "yaml" | "python";

export function indentRuleFor(relative: string): IndentRule | null {
  const name = relative.slice(relative.lastIndexOf("/") + 1);
  if (/^(?:GNUmakefile|[Mm]akefile)$|\.(?:mk|mak)$/.test(name)) return "make";
  if (/\.ya?ml$/i.test(name)) return "yaml";
  if (/\.pyi?$/.test(name)) return "python";
  return null;
}

/** A make rule line: `target: deps`, not a `:=` assignment, not a recipe or comment. */
const RULE = /^[^\s#=][^=]*?:(?!=)/;

/**
 * Why writing `newString` in place of the match at `at` would break the
 * file's indentation, or null. `text` is the whole file as LF text (empty
 * for write_file's whole content, named by `field`).
 */
export function indentationProblem(
  rule: IndentRule,
  relative: string,
  text: string,
  at: number,
  newString: string,
  field = "new_string",
): string | null {
  const again = field === "new_string" ? "edit_file" : "write_file";
  // The lines as they will stand: the first one with whatever precedes the match on its line.
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const [first = "", ...rest] = newString.split("\n");
  const lines = [text.slice(lineStart, at) + first, ...rest];
  switch (rule) {
    case "make": {
      let previous = text.slice(0, lineStart).split("\n").at(-2) ?? "";
      for (const [i, line] of lines.entries()) {
        const recipe = RULE.test(previous) || previous.startsWith("\t");
        if (/^ +\S/.test(line) && recipe && !previous.endsWith("\\")) {
          return `line ${i + 1} of ${field} is a recipe line of ${relative} indented with spaces; make runs only recipe lines that start with a tab ("missing separator" otherwise). Start it with a tab (\\t in the JSON string) and call ${again} again`;
        }
        if (line.trim() !== "") previous = line;
      }
      return null;
    }
    case "yaml": {
      const tabbed = lines.findIndex((line) => /^ *\t/.test(line));
      return tabbed === -1
        ? null
        : `line ${tabbed + 1} of ${field} is indented with a tab, which YAML does not allow (${relative} would no longer parse). Indent it with spaces and call ${again} again`;
    }
    case "python": {
      const fileUses = indentStyle(text.split("\n"));
      if (fileUses === null) return null;
      const other = fileUses === "space" ? /^ *\t/ : /^ +\S/;
      const off = lines.findIndex((line) => line.trim() !== "" && other.test(line));
      if (off === -1) return null;
      const [has, wants] = fileUses === "space" ? ["a tab", "spaces"] : ["spaces", "tabs"];
      return `line ${off + 1} of ${field} is indented with ${has} but ${relative} indents with ${wants}; Python refuses a block that mixes them (TabError). Indent ${field} with ${wants}, as the file does, and call ${again} again`;
    }
  }
}

/** "tab" or "space" when every indented line starts with that; null when none is, or both. */
function indentStyle(lines: readonly string[]): "tab" | "space" | null {
  let tabs = false;
  let spaces = false;
  for (const line of lines) {
    if (line.trim() === "") continue;
    if (line.startsWith("\t")) tabs = true;
    else if (line.startsWith(" ")) spaces = true;
  }
  return tabs === spaces ? null : tabs ? "tab" : "space";
}
