import { CONFIG_FILE } from "../../config/defaults.js";
import {
  clip,
  codeBlock,
  details,
  formatCount,
  MAX_REPORT_TEXT_CHARS,
  plural,
} from "../../github/markdown.js";

/** Short answers on the thread: fork patches, refusals, queue notices, config errors. */

/** Patches beyond this are cut in the answer; a comment must stay under GitHub's body limit. */
const MAX_PATCH_CHARS = 40_000;

/** The answer on a fork's pull request: the App cannot push there, so the change comes as a patch. */
export function renderForkPatchAnswer(input: {
  patch: string;
  summary: string;
  maxPatchChars?: number | undefined;
}): string {
  const max = input.maxPatchChars ?? MAX_PATCH_CHARS;
  const lines = input.patch.replace(/\n$/, "").split("\n");
  let shown = input.patch;
  let note = "";
  if (input.patch.length > max) {
    const cut = input.patch.slice(0, max);
    shown = cut.slice(0, Math.max(0, cut.lastIndexOf("\n")));
    const kept = shown.split("\n").length;
    note = `\n\nThe patch is too long to show in full: these are the first ${formatCount(kept)} of ${formatCount(lines.length)} lines, which cannot be applied on their own. Ask for a smaller change to get a complete patch.`;
  }
  return [
    clip(input.summary.trim(), MAX_REPORT_TEXT_CHARS) || "_No summary given._",
    "This pull request comes from a fork, and a GitHub App cannot push to branches in other people's forks, so here is the change as a patch instead.",
    details(`Patch (${plural(lines.length, "line")})`, `${codeBlock(shown, "diff")}${note}`),
    `To apply it, save it as \`patchwright.diff\` at the root of your checkout of this branch, then run:\n\n${codeBlock("git apply patchwright.diff", "sh")}`,
  ].join("\n\n");
}

export function renderUnauthorizedAnswer(login: string): string {
  return `Sorry @${login}, only people with write access to this repository can ask me to make changes.`;
}

export function renderClosedAnswer(
  kind: "issue" | "pull_request",
  state: "closed" | "locked" = "closed",
): string {
  const what = kind === "issue" ? "issue" : "pull request";
  return `This ${what} is ${state}, so I won't start work on it. ${state === "closed" ? "Reopen it" : "Unlock it"} and ask again if it still needs doing.`;
}

export function renderConfigErrorAnswer(errorMarkdown: string): string {
  return [
    `I couldn't use ${CONFIG_FILE}:`,
    errorMarkdown.trim(),
    "Fix the file on the default branch, then ask again.",
  ].join("\n\n");
}
