/**
 * Small Markdown and number formatters shared by the tracking comment and the
 * job's reports, so every text the bot writes formats money, tokens and time
 * the same way and never lets untrusted text break out of a code span.
 */

/** GitHub rejects issue comments and PR bodies longer than this. */
export const GITHUB_BODY_LIMIT = 65_536;

/** `$0.0123` below a dollar (where cents hide the cost), `$1.23` above. */
export function formatUsd(amount: number): string {
  const value = Number.isFinite(amount) && amount > 0 ? amount : 0;
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** `12,345` */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** `45s`, `1m 23s`, `2h 5m` */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds}s`;
  return `${seconds}s`;
}

/** `1 commit`, `3 commits` */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * A code span that holds any text: the fence is longer than any backtick run
 * inside, and newlines become spaces, so a path or command cannot inject
 * Markdown (or an @mention, which GitHub ignores inside code).
 */
export function inlineCode(text: string, maxChars = 100): string {
  let value = text.replace(/\s*\n\s*/g, " ").trim();
  if (value.length > maxChars) value = `${value.slice(0, maxChars - 1)}…`;
  if (value === "") return "` `";
  const fence = "`".repeat(longestRun(value, "`") + 1);
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}

/**
 * Plain text that names packages, for a comment or a body: GitHub reads a
 * scoped name outside code (`@trpc/client`) as a mention of a team in that
 * organization, so each one goes in a code span.
 */
export function codeScopedNames(text: string): string {
  // Code spans already there stay whole (`npm pkg set allowScripts.@scope/x=true`).
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(
            /(^|[^\w@/.-])(@[a-z0-9][\w.-]*\/[\w.-]*\w)/gi,
            (_, before: string, name: string) => `${before}${inlineCode(name)}`,
          ),
    )
    .join("");
}

/** A fenced block whose fence cannot be closed by the content. */
export function codeBlock(text: string, language = ""): string {
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `${fence}${language}\n${body}${fence}`;
}

/** Quoted text; every line is prefixed, so lists and code blocks inside keep their shape. */
export function blockquote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.trim() ? `> ${line}` : ">"))
    .join("\n");
}

/** A collapsed section; blank lines around the content let Markdown render inside it. */
export function details(summary: string, content: string): string {
  return `<details>\n<summary>${escapeHtml(summary)}</summary>\n\n${content}\n\n</details>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Text in a Markdown table cell: pipes escaped, one line. */
export function tableCell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
}

/** Keeps the end of the text (where test runners print their summary), at most `maxChars`. */
export function tail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(text.length - maxChars);
  const newline = cut.indexOf("\n");
  // Start at a line boundary when one is near, so the first line is not half a line.
  return newline >= 0 && newline < 200 ? cut.slice(newline + 1) : cut;
}

/**
 * Cuts a body to GitHub's limit with a note saying so. Bodies are built from
 * capped parts, so this is a last line of defence, not the usual path.
 */
export function fitBody(body: string, limit = GITHUB_BODY_LIMIT): string {
  if (body.length <= limit) return body;
  const note = "\n\n… (cut to fit GitHub's comment size limit)";
  return `${body.slice(0, limit - note.length)}${note}`;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}

/**
 * A job step ("Verifying: `npm test`") as plain text for a terminal or a
 * log. A step holds at most one code span (a command or a branch): its first
 * and last backticks delimit it, so backticks inside a command survive.
 */
export function plainStep(step: string): string {
  return step.replace(/`(.*)`/, "$1");
}

/** A comment's free text (the agent's summary, an answer) beyond this is cut. */
export const MAX_REPORT_TEXT_CHARS = 10_000;

/** `text` cut at `maxChars`, saying how much was left out. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n\n… (cut: ${formatCount(text.length - maxChars)} more characters)`;
}
