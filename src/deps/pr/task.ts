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

/** The packages (of `moved`) the agent's answer says it cannot make work (`Cannot fix: name`, one per line). */
export function cannotFixNames(answer: string, moved: readonly string[]): string[] {
  const known = new Set(moved);
  const named = new Set<string>();
  for (const line of answer.split("\n")) {
    const match = /^\s*[-*>]?\s*\**cannot fix:?\**\s*`?(@?[\w.-]+(?:\/[\w.-]+)?)`?/i.exec(line);
    const name = match?.[1];
    if (name && known.has(name)) named.add(name);
  }
  return [...named];
}
