import type { CommandResult } from "../../kernel/run-command.js";
import { fromVersions } from "../plan/outdated.js";
import type { Update } from "../update.js";
import { DEPS_FIX_RULES } from "./rules.js";

/**
 * The agent's task when a bump breaks the install or the checks: what was
 * bumped (from -> to, with where to read what changed), the command that
 * failed and its output, and the one rule that makes this different from a
 * bug fix: fix the code forward, never undo the bump.
 */

export type BumpStage = "lockfile" | "install" | "verify";

export interface BumpFailure {
  stage: BumpStage;
  result: CommandResult;
}

const STAGE_TEXT: Record<BumpStage, string> = {
  lockfile: "the package manager could not resolve the new versions",
  install: "installing the new versions failed",
  verify: "the repository's checks fail with the new versions",
};

export function buildDepsFixTask(options: {
  updates: readonly Update[];
  failure: BumpFailure;
  /** What changed upstream (renderUpstream), fenced as data; empty when nothing was found. */
  upstream?: string;
}): string {
  const { failure } = options;
  const lines = [
    `The dependency updates below are applied and installed in this checkout, but ${STAGE_TEXT[failure.stage]}.`,
    "Make the repository work with the new versions, then run the failing command again to confirm.",
    "",
    "Updates:",
    ...options.updates.map(describeUpdate),
    "",
    `Failing command (exit ${failure.result.exit}${failure.result.timedOut ? ", timed out" : ""}): \`${failure.result.command}\``,
    "Its output (the end of it):",
    "```",
    failure.result.outputTail.replace(/```/g, "'''") || "(no output)",
    "```",
    "",
    options.upstream
      ? "What changed upstream is below; read it before changing code."
      : "Read the release notes or changelog of the packages that crossed a major version before changing code; the links are above.",
  ];
  if (options.upstream) lines.push("", options.upstream);
  return lines.join("\n");
}

function describeUpdate(update: Update): string {
  const links = [update.links.releases, update.links.changelog, update.links.repository]
    .filter(Boolean)
    .slice(0, 2);
  const where = [...new Set(update.locations.map((l) => l.manifest))].join(", ");
  const tail = links.length > 0 ? ` — ${links.join(" , ")}` : "";
  return `- ${update.name} ${fromVersions(update)} -> ${update.to} (${update.type}, ${where})${tail}`;
}

export { DEPS_FIX_RULES };
