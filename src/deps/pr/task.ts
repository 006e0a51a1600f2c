import { fromVersions } from "../plan/outdated.js";
import type { OverrideMove, PrBump } from "./bump-diff.js";

/**
 * What the agent is told about another bot's dependency pull request, and
 * how it says that one package of several cannot be made to work (a line
 * patchwright reads back, then puts that package back itself: the agent is
 * never asked to edit a lockfile).
 */

export const CANNOT_FIX = "Cannot fix:";

/** The packages a bump moves: its updates, and the packages only an override moved. */
export function movedNames(bump: PrBump): string[] {
  return [
    ...new Set([...bump.updates.map((u) => u.name), ...bump.overrideMoves.map((m) => m.name)]),
  ];
}

export function describeBump(bot: string, bump: PrBump): string {
  if (bump.updates.length === 0 && bump.overrideMoves.length === 0) {
    return `This pull request was opened by ${bot}, but no dependency's version or override moved in its manifests or lockfile; work from the CI logs.`;
  }
  const updated = new Set(bump.updates.map((u) => u.name));
  const override = (move: OverrideMove) =>
    `${move.file} ${move.field}: ${JSON.stringify(move.key)} ${JSON.stringify(move.from)} -> ${JSON.stringify(move.to)}`;
  const lines = [
    `This pull request was opened by ${bot} and updates (${bump.manager.name}${bump.lockfilePath ? `, ${bump.lockfilePath}` : ""}):`,
    ...bump.updates.map(
      (u) =>
        `- ${u.name} ${fromVersions(u)} -> ${u.to} (${u.type}, ${[...new Set(u.locations.map((l) => l.manifest))].join(", ")})`,
    ),
    ...bump.overrideMoves.map((move) =>
      updated.has(move.name)
        ? `- ${move.name}'s version is set by ${override(move)}`
        : `- ${move.name}, which the project does not declare, through ${override(move)}`,
    ),
  ];
  if (movedNames(bump).length > 1) {
    lines.push(
      "",
      `If one of these packages cannot be made to work from this repository, leave it alone and end your answer with a line \`${CANNOT_FIX} <package name>\` and the reason; patchwright then puts that package back to its old version in a commit of its own and keeps the others.`,
    );
  }
  return lines.join("\n");
}

/**
 * The packages (of `moved`) the agent's answer says it cannot make work.
 * Asked for as `Cannot fix: name` lines, and read as models write them:
 * with markdown around (`**Cannot fix:**`, `## Cannot fix`, a list item),
 * several names on one line (`fx-a, fx-b and fx-c`), a version after a
 * name (`fx-a@1.1.0`), or the names as a list under a `Cannot fix:` line.
 * Names are read up to the first word that is none of them (the reason),
 * so a package the reason mentions is not taken.
 */
export function cannotFixNames(answer: string, moved: readonly string[]): string[] {
  const known = new Set(moved);
  const named = new Set<string>();
  const lines = answer.split("\n");
  for (const [index, line] of lines.entries()) {
    const rest = /^(?:cannot|can['\u2019]t) fix\b[^\w@]*(.*)$/i.exec(plainLine(line))?.[1]?.trim();
    if (rest === undefined) continue;
    const names = leadingNames(rest, known);
    for (const name of names) named.add(name);
    // `Cannot fix:` (or `Cannot fix these:`) and no name: the names are the list below it.
    if (names.length > 0 || !(rest === "" || rest.endsWith(":"))) continue;
    for (const next of lines.slice(index + 1)) {
      if (!/^\s*(?:[-*+]|\d+[.)])\s/.test(next)) break;
      for (const name of leadingNames(plainLine(next), known)) named.add(name);
    }
  }
  return [...named];
}

/** A line without its markdown lead (heading, list or quote marker) and emphasis. */
function plainLine(line: string): string {
  return line
    .replace(/^\s*(?:#+|>|[-*+]|\d+[.)])?\s*/, "")
    .replace(/^[*_]+/, "")
    .trim();
}

/** The known names at the start of `text`, up to the first word that is none (`fx-a, fx-b and fx-c — why`). */
function leadingNames(text: string, known: ReadonlySet<string>): string[] {
  const names: string[] = [];
  for (const word of text.split(/[\s,]+/)) {
    if (!word || /^(?:and|&|or)$/i.test(word)) continue;
    const bare = word.replace(/^[`'"*_(]+|[`'"*_):;.]+$/g, "").replace(/(.)@[^/]*$/, "$1");
    if (!known.has(bare)) break;
    names.push(bare);
  }
  return names;
}
