import {
  blockquote,
  codeBlock,
  codeScopedNames,
  details,
  fitBody,
  formatDuration,
  inlineCode,
  plural,
  tableCell,
  tail,
} from "../../github/markdown.js";
import { renderDrift } from "../../report/summary.js";
import { renderWarnings } from "../../report/warnings.js";
import type { DepsGroupResult } from "../group/group-result.js";
import { releaseSwaps } from "../managers/yarn/release-file.js";
import { SCRIPT_SETTINGS, type UnreviewedPackage } from "../plan/install-scripts.js";
import { fromVersions } from "../plan/outdated.js";
import type { PlanWarning } from "../plan/plan.js";
import { byFromVersion, displayName, listManifests, warningText } from "../plan/render-plan.js";
import { formatAge } from "../plan/versions.js";
import type { ReleaseSwap, ScriptTool, UnapprovedScripts, Update } from "../update.js";
import { updatesMarker } from "./bump-pulls.js";

/**
 * The bump pull request's body: what moved (a table a reviewer can scan),
 * what was left out and why, what the agent changed and why, whether the
 * checks pass, and the warnings that deserve a second look.
 */

const STAGE: Record<string, string> = {
  lockfile: "the package manager could not resolve it",
  install: "the install failed",
  verify: "the checks failed",
};

export function renderDepsPullRequestBody(
  result: DepsGroupResult,
  /** `warnings`: the plan's checks that could not run, said before anything else. */
  options: { now: number; warnings?: readonly PlanWarning[] | undefined },
): string {
  // First, so cutting an overlong body never loses it.
  const parts: string[] = [updatesMarker(result.applied)];
  for (const warning of options.warnings ?? [])
    parts.push(`> [!WARNING]\n> ${tableCell(codeScopedNames(warningText(warning)))}.`);
  const count = plural(result.applied.length, "npm package");
  parts.push(
    result.group.single
      ? `Updates ${count}.`
      : `Updates ${count} in the **${result.group.name}** group.`,
    updatesTable(result.applied, options.now),
  );
  const perWorkspace = workspaceTable(result.applied);
  if (perWorkspace) parts.push("#### Per workspace", perWorkspace);
  for (const { update, swap } of releaseSwaps(result.applied))
    parts.push(releaseNote(update, swap));
  // Why not the newest (a cooldown, a Node, a family's exact peer range): the plan says it, so does the PR.
  const passed = result.applied.flatMap((u) =>
    u.passedOver.map(
      (note) => `- ${inlineCode(displayName(u))}: passed over ${tableCell(codeScopedNames(note))}`,
    ),
  );
  if (passed.length > 0) parts.push("#### Newer releases not taken", passed.join("\n"));
  const split = result.group.split;
  if (split?.role === "as-is") {
    parts.push(
      `These updates pass the checks as they are: nothing but the versions changes here. The rest of the group needs changes to the code and is in ${inlineCode(split.other)}, in its own pull request.`,
    );
  } else if (split?.role === "fixes") {
    parts.push(
      `These updates need changes to the code, made below. The updates of the group that pass as they are are in ${inlineCode(split.other)}, in their own pull request.`,
    );
  }
  const advisories = result.applied.flatMap((u) =>
    (u.advisories ?? []).map((a) => ({ update: u, advisory: a })),
  );
  if (advisories.length > 0) {
    // Advisory text comes from the registry: it is shown as data, in table cells.
    const rows = advisories.map(({ update, advisory }) => {
      const id = advisory.url
        ? `[${tableCell(String(advisory.id))}](${advisory.url})`
        : tableCell(String(advisory.id));
      return `| ${id} | ${tableCell(advisory.severity)} | ${inlineCode(update.name)} \`${tableCell(advisory.vulnerable_versions)}\` | ${tableCell(codeScopedNames(advisory.title))} |`;
    });
    parts.push(
      "### Security",
      `Fixes ${plural(advisories.length, "known advisory", "known advisories")} in the installed version. Security updates skip the schedule and the cooldown.`,
      ["| Advisory | Severity | Affected | Title |", "| --- | --- | --- | --- |", ...rows].join(
        "\n",
      ),
    );
  }

  if (result.leftOut.length > 0) {
    const lines = result.leftOut.map(({ update, failure }) => {
      const why = failure
        ? `with it ${STAGE[failure.stage] ?? "the checks failed"} (${inlineCode(failure.result.command)}, exit ${failure.result.exit}) even after the fix attempt, and the rest of the group passes without it`
        : "it could not be checked in time";
      return `- ${named(update.name)} ${fromVersions(update)} → ${update.to}: ${why}.`;
    });
    const lastOutput = result.leftOut.find((l) => l.failure)?.failure?.result.outputTail;
    parts.push(
      "### Left out",
      lines.join("\n"),
      ...(lastOutput
        ? ["Output of the failing check with it:", codeBlock(tail(lastOutput, 2_000))]
        : []),
    );
  }

  if (result.agent) {
    const { agent } = result;
    const files =
      agent.files.length > 0
        ? `Files changed: ${agent.files.map((f) => inlineCode(f)).join(", ")}.`
        : "It changed nothing.";
    parts.push(
      "### What patchwright changed",
      result.firstFailure
        ? `The bump broke ${inlineCode(result.firstFailure.result.command)} (exit ${result.firstFailure.result.exit}), so the agent worked on it (stop reason: ${agent.stopReason}${agent.error ? `: ${agent.error}` : ""}). ${files}`
        : files,
      agent.summary.trim() ? quote(agent.summary.trim()) : "_The agent gave no summary._",
    );
    if (result.firstFailure?.result.outputTail.trim()) {
      const output = codeBlock(
        tail(result.firstFailure.result.outputTail.trimEnd(), 2_000),
        "text",
      );
      parts.push(details("What broke before the agent's fix (last lines)", output));
    }
  }

  if (result.drift?.length) parts.push(renderDrift(result.drift));
  parts.push("### Verification", verification(result));

  const warnings = [
    ...(result.agentLoosened?.length ? [agentLoosenedWarning(result.agentLoosened)] : []),
    ...warningsFor(result.applied),
    ...lockedScriptWarnings(result.unreviewedScripts ?? [], result.applied),
  ];
  if (warnings.length > 0) parts.push("### Warnings", warnings.join("\n"));
  // What went wrong around the group's work without stopping it (a package not put back).
  if (result.warnings?.length)
    parts.push(renderWarnings(result.warnings, "### What did not go as planned"));

  parts.push(
    `---\n_Generated by patchwright. Each scheduled run regenerates this branch while the pull request is open, until someone else pushes to it. Close it to skip these versions._`,
  );
  return fitBody(parts.join("\n\n"));
}

function updatesTable(updates: readonly Update[], now: number): string {
  const rows = updates.map((u) => {
    const name = u.links.repository
      ? `[${tableCell(displayName(u))}](${u.links.repository})`
      : inlineCode(displayName(u));
    const age = u.publishedAt ? `${formatAge(now - Date.parse(u.publishedAt))} ago` : "unknown";
    const notes = u.links.releases
      ? `[release notes](${u.links.releases})`
      : u.links.repository
        ? `[repository](${u.links.repository})`
        : "";
    return `| ${name} | \`${fromVersions(u)}\` → \`${u.to}\` | ${u.type} | ${age} | ${notes} |`;
  });
  return [
    "| Package | Change | Type | Released | Notes |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/**
 * Where the workspaces of one repository start from different versions: a
 * row for each version with the package.json files on it, named up to three
 * (a row per file made TanStack router's body longer than GitHub takes, and
 * the cut took the verification with it).
 */
function workspaceTable(updates: readonly Update[]): string | undefined {
  const rows = updates
    .filter((u) => new Set(u.locations.map((l) => l.from)).size > 1)
    .flatMap((u) =>
      [...byFromVersion(u.locations, (l) => l.manifest)].map(
        ([from, manifests]) =>
          `| ${inlineCode(displayName(u))} | \`${from}\` → \`${u.to}\` | ${listManifests(manifests, (m) => `\`${tableCell(m)}\``)} |`,
      ),
    );
  if (rows.length === 0) return undefined;
  return ["| Package | Change | Workspaces |", "| --- | --- | --- |", ...rows].join("\n");
}

function verification(result: DepsGroupResult): string {
  if (result.unverified) {
    return "⚠️ Not verified: no `deps.verify` or `verify` command is configured and package.json has no test script.";
  }
  const verify = result.verify;
  if (!verify) return "⚠️ The checks did not run.";
  const line = `${verify.passed ? "✅" : "❌"} ${inlineCode(verify.command)} ${verify.passed ? "passed" : `failed (exit ${verify.exit})`} in ${formatDuration(verify.durationMs)}.`;
  return verify.passed ? line : `${line}\n\n${codeBlock(tail(verify.outputTail, 2_000))}`;
}

/** The install-script approvals an agent's fix added, which its rules forbid (fix/script-approvals.ts). */
export function agentLoosenedWarning(loosened: readonly string[]): string {
  return `- ⚠️ **The agent's fix loosens the project's dependency safeguards**: ${loosened.join(", ")}. It was told not to: approving a dependency's install script, or letting a package past a release-age gate or a trust policy, is your review. Read what it lets through before merging, or take the change out.`;
}

export function warningsFor(updates: readonly Update[]): string[] {
  const warnings: string[] = [];
  for (const u of updates) {
    if (u.type === "major") {
      warnings.push(
        `- ⚠️ ${named(u.name)} crosses a major version (${fromVersions(u)} → ${u.to}): read the release notes for breaking changes.`,
      );
    }
    if (u.newInstallScripts.length > 0) {
      warnings.push(
        `- ⚠️ ${named(u.name)} ${u.to} adds ${u.newInstallScripts.map((s) => inlineCode(s)).join(", ")} ${u.newInstallScripts.length === 1 ? "script" : "scripts"}: code that runs on every install.`,
      );
    }
    if (u.unapprovedScripts) warnings.push(unapprovedWarning(u, u.unapprovedScripts));
  }
  return warnings;
}

/** npm 12 skips the script where CI installs; approving it is the maintainer's review, not the bot's. */
function unapprovedWarning(update: Update, unapproved: UnapprovedScripts): string {
  const { scripts } = unapproved;
  const what = `${scripts.length === 1 ? "a " : ""}${scripts.map((s) => inlineCode(s)).join(", ")} ${scripts.length === 1 ? "script" : "scripts"}`;
  return `- ⚠️ ${named(update.name)} ${update.to} has ${what} ${notApproved(update.package ?? update.name, unapproved)}`;
}

/** The same for what the lockfile newly locks, less what a direct update's line already says. */
export function lockedScriptWarnings(
  packages: readonly UnreviewedPackage[],
  applied: readonly Update[],
): string[] {
  const said = new Set(
    applied.filter((u) => u.unapprovedScripts).map((u) => `${u.package ?? u.name}@${u.to}`),
  );
  return packages
    .filter((p) => !said.has(`${p.name}@${p.version}`))
    .map(
      (p) =>
        `- ⚠️ ${named(p.name)} ${p.version}, which this update locks, has an install script ${notApproved(p.name, p)}`,
    );
}

function notApproved(
  name: string,
  { tool, otherVersions }: { tool: ScriptTool; otherVersions: readonly string[] },
): string {
  const settings = SCRIPT_SETTINGS[tool];
  const pinned =
    otherVersions.length > 0
      ? ` (it approves ${otherVersions.map((k) => inlineCode(k)).join(", ")})`
      : "";
  return `that ${settings.where} does not approve${pinned}: ${settings.skips}. Review it, then approve it with ${inlineCode(settings.approve(name))}.`;
}

/** A release file the project keeps, replaced: where its new bytes come from, checked how. */
function releaseNote(update: Update, swap: ReleaseSwap): string {
  const replaced = swap.replaces
    ? `${inlineCode(swap.replaces)} is replaced by ${inlineCode(swap.file)}`
    : `${inlineCode(swap.file)} is added`;
  return `${inlineCode(update.name)} runs the release file ${inlineCode(swap.settings)} names, so ${replaced} and ${inlineCode(swap.settings)} names it, as ${inlineCode(`yarn set version ${update.to}`)} does: the file is ${inlineCode(swap.from.file)} of ${inlineCode(`${swap.from.package}@${update.to}`)} from the registry, whose tarball matched the integrity the registry states.${swap.replaces ? ` While the job ran, its commands started yarn by the old file, which hands over to the one ${inlineCode(swap.settings)} names.` : ""}`;
}

/** A package named in a list item: in code, so a scoped name is no team mention. */
function named(name: string): string {
  return `**${inlineCode(name)}**`;
}

function quote(text: string): string {
  return blockquote(tail(text, 3_000));
}
