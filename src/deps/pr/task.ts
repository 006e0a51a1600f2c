import { fromVersions } from "../plan/outdated.js";
import type { Update } from "../update.js";
import type { PrBump } from "./bump-diff.js";

/**
 * What the agent is told about another bot's dependency pull request, and
 * how it says that one package of several cannot be made to work (a line
 * patchwright reads back, then puts that package back itself: the agent is
 * never asked to edit a lockfile).
 */

export const CANNOT_FIX = "Cannot fix:";

export function describeBump(bot: string, bump: PrBump): string {
  if (bump.updates.length === 0) {
    return `This pull request was opened by ${bot}, but no dependency's version moved in its manifests or lockfile; work from the CI logs.`;
  }
  const lines = [
    `This pull request was opened by ${bot} and updates (${bump.manager.name}${bump.lockfilePath ? `, ${bump.lockfilePath}` : ""}):`,
    ...bump.updates.map(
      (u) =>
        `- ${u.name} ${fromVersions(u)} -> ${u.to} (${u.type}, ${[...new Set(u.locations.map((l) => l.manifest))].join(", ")})`,
    ),
    ...bump.overrideMoves.map(
      (move) =>
        `- ${move.name}'s version is set by ${move.file} ${move.field}: ${JSON.stringify(move.key)} ${JSON.stringify(move.from)} -> ${JSON.stringify(move.to)}`,
    ),
  ];
  if (bump.updates.length > 1) {
    lines.push(
      "",
      `If one of these packages cannot be made to work from this repository, leave it alone and end your answer with a line \`${CANNOT_FIX} <package name>\` and the reason; patchwright then puts that package back to its old version in a commit of its own and keeps the others.`,
    );
  }
  return lines.join("\n");
}

/** The updates the agent's answer says it cannot make work (`Cannot fix: name`, one per line). */
export function cannotFixNames(answer: string, updates: readonly Update[]): string[] {
  const known = new Set(updates.map((u) => u.name));
  const named = new Set<string>();
  for (const line of answer.split("\n")) {
    const match = /^\s*[-*>]?\s*\**cannot fix:?\**\s*`?(@?[\w.-]+(?:\/[\w.-]+)?)`?/i.exec(line);
    const name = match?.[1];
    if (name && known.has(name)) named.add(name);
  }
  return [...named];
}
