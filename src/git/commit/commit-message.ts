import { commitScope, commitType, isDepsOnly, isVerb, toPresent } from "./commit-kind.js";
import { wrapText } from "./text-wrap.js";

/**
 * Commit messages from the model's own words for a turn and the files it
 * touched, in Conventional Commit style, with no extra model call. Pure.
 */

export interface CoAuthor {
  name: string;
  login: string;
  id: number | string;
  /** Overrides the github.com noreply address (GitHub Enterprise). */
  email?: string;
}

export interface CommitMessageInput {
  /** What the model said during the turn. */
  text: string;
  /** Paths the commit touches, relative to the repository root. */
  files: string[];
  coAuthor?: CoAuthor;
  requestUrl?: string;
}

export interface CommitMessage {
  subject: string;
  body: string;
  trailers: string[];
  /** subject, body and trailers as `git commit` should receive them. */
  message: string;
}

export const SUBJECT_MAX = 72;
const BODY_MAX_CHARS = 1500;
const FILES_LISTED = 25;

export function buildCommitMessage(input: CommitMessageInput): CommitMessage {
  const prose = cleanProse(input.text);
  const sentences = splitSentences(prose);
  const chosen = chooseSentence(sentences);
  const description = chosen ? imperative(chosen) : fallbackDescription(input.files);
  const type = commitType(description, prose, input.files);
  const found = type === "chore" && isDepsOnly(input.files) ? "deps" : commitScope(input.files);
  const scope = found === type ? undefined : found;
  const { subject, complete } = assembleSubject(type, scope, description);

  const parts: string[] = [];
  const textBody = bodyText(input.text);
  if (textBody && (!complete || sentences.length > 1)) parts.push(textBody);
  if (input.files.length > 1) parts.push(fileList(input.files));
  const trailers: string[] = [];
  if (input.coAuthor) trailers.push(coAuthorTrailer(input.coAuthor));
  if (input.requestUrl) trailers.push(`Refs: ${input.requestUrl}`);
  const body = parts.join("\n\n");
  const message = [subject, body, trailers.join("\n")].filter(Boolean).join("\n\n");
  return { subject, body, trailers, message: `${message}\n` };
}

export function coAuthorTrailer(coAuthor: CoAuthor): string {
  const email = coAuthor.email ?? `${coAuthor.id}+${coAuthor.login}@users.noreply.github.com`;
  return `Co-authored-by: ${oneLine(coAuthor.name) || coAuthor.login} <${email}>`;
}

const FILLER =
  /^(?:(?:now|okay|ok|great|perfect|alright|good|first|next|then|finally|also|so|and|done|here)\b[,!.:]?\s*|(?:let me|let's|lets|i'll|i will|i'm going to|i am going to|i need to|we need to|i'm|i am|i've|i have|we've|we have|i|we)\s+)/i;
const EXPLORING =
  /^(look|read|check|see|examine|explore|inspect|search|find|view|open|run|understand|start|verify|confirm|review|investigate|try)\b/i;
function stripFiller(sentence: string): string {
  let current = sentence.trim();
  for (let previous = ""; previous !== current; ) {
    previous = current;
    current = current.replace(FILLER, "").trim();
  }
  return current;
}

function chooseSentence(sentences: string[]): string | undefined {
  const stripped = sentences.map(stripFiller).filter((s) => /[a-z]/i.test(s));
  const changing = stripped.find((s) => isVerb(toPresent(firstWord(s))));
  const first = changing ?? stripped[0];
  if (!first || EXPLORING.test(first)) return undefined;
  return first;
}

function firstWord(sentence: string): string {
  return (sentence.split(/\s+/)[0] ?? "").toLowerCase().replace(/[^a-z]/g, "");
}

/** "Fixed the parser." -> "fix the parser" */
function imperative(sentence: string): string {
  const words = sentence.replace(/[.!?:;,\s]+$/, "").split(/\s+/);
  const head = words[0] ?? "";
  const present = toPresent(head.toLowerCase().replace(/[^a-z]/g, ""));
  if (isVerb(present)) words[0] = present;
  else if (!/^[A-Z0-9]{2,}/.test(head)) words[0] = head.charAt(0).toLowerCase() + head.slice(1);
  return words.join(" ");
}

function fallbackDescription(files: string[]): string {
  if (files.length === 1) return `update ${files[0]}`;
  const scope = commitScope(files);
  return scope ? `update ${files.length} files in ${scope}` : `update ${files.length} files`;
}

function assembleSubject(
  type: string,
  scope: string | undefined,
  description: string,
): { subject: string; complete: boolean } {
  const full = `${type}${scope ? `(${scope})` : ""}: ${description}`;
  if (full.length <= SUBJECT_MAX) return { subject: full, complete: true };
  const prefix = `${type}${scope ? `(${scope})` : ""}: `;
  const room = SUBJECT_MAX - prefix.length;
  if (scope && room < 30) return assembleSubject(type, undefined, description);
  return { subject: prefix + shortenPhrase(description, room), complete: false };
}

/**
 * Boundaries a description can end at and still read as a whole phrase,
 * strongest first: a clause or sentence ends; a subordinate clause or a
 * list item begins; a prepositional phrase begins. The cut is before the
 * match, so the boundary word goes with the dropped part.
 */
const BOUNDARIES = [
  // (\u2014 and \u2013 are the em and en dash: scripts/bundle-action.mjs says why not the characters.)
  /[.!?;:](?=\s)|\s[\u2014\u2013-]\s|\s\(/g,
  /,\s|\s(?=(?:so that|so|which|that|because|since|when|whenever|where|while|before|after|until|unless|instead of|rather than|in order to|by|and|but|or|then|as well as|matching|making|causing)\s)/gi,
  /\s(?=(?:with|without|to|for|in|on|from|into|via|using|through|at|of|per|across|within|against)\s)/gi,
];

/** A cut that leaves less than this share of the room reads as too little; a weaker boundary may say more. */
const MIN_SHARE = 0.4;

/**
 * Shortens a description to `max` characters as a whole phrase: it ends at
 * the latest boundary that fits (strongest kind first), else at a word,
 * never on a word that leaves it hanging ("use", "and", "the", "to").
 */
function shortenPhrase(text: string, max: number): string {
  if (text.length <= max) return text;
  const fitting = (pattern: RegExp) =>
    [...text.matchAll(pattern)]
      .map((match) => trimDangling(text.slice(0, match.index)))
      .filter((cut) => cut.length <= max && cut.length >= 12)
      .sort((a, b) => b.length - a.length);
  const candidates = BOUNDARIES.map(fitting);
  const good = candidates.find((cuts) => (cuts[0]?.length ?? 0) >= max * MIN_SHARE)?.[0];
  const longest = candidates.flat().sort((a, b) => b.length - a.length)[0];
  return good ?? longest ?? (trimDangling(truncateWords(text, max)) || truncateWords(text, max));
}

/** Words a phrase cannot end on: it would trail off into what was cut. */
const DANGLING = new Set([
  ...["a", "an", "the", "and", "or", "but", "nor", "so", "to", "of", "in", "on", "at", "by"],
  ...["for", "from", "with", "without", "into", "onto", "via", "as", "than", "then", "that"],
  ...["which", "who", "when", "where", "while", "if", "because", "since", "unless", "until"],
  ...["after", "before", "its", "their", "his", "her", "our", "your", "my", "this", "these"],
  ...["those", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do"],
  ...["does", "did", "can", "could", "should", "would", "will", "may", "might", "must", "not"],
  ...["no", "use", "uses", "using", "make", "makes", "making", "instead", "rather", "such"],
  ...["like", "per", "each", "every", "both", "either", "neither", "more", "less", "very"],
]);

function trimDangling(text: string): string {
  const words = text.replace(/[\s,;:.!?\u2014\u2013(-]+$/, "").split(/\s+/);
  while (words.length > 0 && DANGLING.has((words.at(-1) ?? "").toLowerCase())) {
    words.pop();
    const last = words.at(-1);
    if (last !== undefined) words[words.length - 1] = last.replace(/[,;:.!?\u2014\u2013(-]+$/, "");
  }
  return words.join(" ");
}

function truncateWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).replace(/[\s,;:.-]+$/, "");
}

/** Markdown to plain sentences: code blocks out, markup out, whitespace collapsed. */
function cleanProse(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, "")
    .replace(/(^|[\s(])(\*\*|__|\*|_)(\S[^*_]*?)\2(?=[\s).,!?:;]|$)/gm, "$1$3")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

function splitSentences(prose: string): string[] {
  return prose
    .split(/(?<=[.!?:])\s+(?=[A-Z`"'(])|\n+/)
    .map((s) => oneLine(s))
    .filter(Boolean);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

// Lines that git would read as trailers (attribution, sign-off, issue links)
// must come from us, never from text the model produced.
const TRAILER_LIKE = /^\s*(co-authored-by|signed-off-by|reviewed-by|refs?|fixes|closes|resolves):/i;

function bodyText(text: string): string {
  const kept = text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .filter((line) => !TRAILER_LIKE.test(line))
    .join("\n")
    .trim();
  if (!kept) return "";
  const limited = kept.length > BODY_MAX_CHARS ? `${truncateWords(kept, BODY_MAX_CHARS)} …` : kept;
  return wrapText(limited);
}

function fileList(files: string[]): string {
  const shown = files.slice(0, FILES_LISTED).map((f) => `- ${f}`);
  if (files.length > FILES_LISTED) shown.push(`- … and ${files.length - FILES_LISTED} more`);
  return ["Files:", ...shown].join("\n");
}

/**
 * What `git stripspace` (and `git commit --cleanup=whitespace`) makes of a
 * message, without its process: each line loses its trailing whitespace
 * (git's: space, tab, CR, LF), blank lines at the start and end go, a run
 * of them inside becomes one, and every line ends with a newline.
 */
export function stripSpace(text: string): string {
  let out = "";
  let blanks = 0;
  for (const line of text.split("\n")) {
    const kept = line.replace(/[ \t\r]+$/, "");
    if (kept === "") {
      blanks++;
      continue;
    }
    if (blanks > 0 && out !== "") out += "\n";
    blanks = 0;
    out += `${kept}\n`;
  }
  return out;
}
