import type { RepoConfig } from "../config/schema.js";
import { inlineCode } from "../github/markdown.js";
import type { JobRequest } from "../requests/request.js";
import { splitProse } from "./phrase.js";

/**
 * A budget named in a request: `@agent fix this, budget $2` (also
 * `budget: $2.50`, `budget of $2`, `max budget $2`, `$2 budget`, `max $2`,
 * `maximum $2`, `max cost $2`, `$2 max`, `budget 2 USD`, `2 dollars max`),
 * anywhere in the requester's own prose, case-insensitively. Read the way
 * the trigger phrase is (thread/phrase.ts): quotes (someone else's words),
 * code and HTML comments never count, so `> @agent …, budget $100` in a
 * quoted earlier comment sets nothing, and a price the request is about can
 * be written in backticks. It lowers or raises this job's cost cap within
 * `max_cost_per_request_usd` (default: `max_cost_usd`); the operator's
 * ceiling was already applied to both.
 *
 * An amount is digits, optionally with thousands commas and cents after a
 * point. Anything else after a budget word (`$0`, `$-1`, `$1e9`, `$2k`, a
 * bare `$`) is refused, said in the reply, and the job keeps its usual cap:
 * the cap is never 0, negative, or not a number. A huge amount is capped,
 * not refused. The phrases are taken out of the instruction the agent sees,
 * so a budget is never read as part of the task.
 */

export type BudgetPhrase =
  | { kind: "amount"; usd: number; written: string }
  | {
      kind: "refused";
      written: string;
      /** Not an amount at all (`$1e9`, `$`), or an amount no cap can be (`$0`, `$-1`). */
      verdict: "not understood" | "not allowed";
      reason: string;
    };

export interface BudgetReading {
  /** Every budget phrase in the prose, in order. */
  phrases: BudgetPhrase[];
  /** The text without them (code, quotes and comments as they were). */
  text: string;
}

const SIGN = "[-+\u2212]?";
/** A dollar token as typed: `$2`, `$2.50,` `$-1`, `$1e9`, `$` (trailing `.` and `,` are the sentence's). */
const DOLLAR = `${SIGN}\\$[\\w.,+\\-\u2212]*`;
/** The same, but it must start like a number: `max $ sign` is no budget. */
const DOLLAR_NUMBER = `${SIGN}\\$(?=${SIGN}[\\d.])[\\w.,+\\-\u2212]*`;
/** `2 USD`, `2.50 dollars`, `2usd` (bounded: a lazy scan over a long run of digits is quadratic). */
const NUMBER_USD = `${SIGN}\\d[\\w.,+\\-\u2212]{0,64}?[ \\t]*(?:usd|dollars?)(?![\\w])`;
/** Within one line: "over budget" at a paragraph's end and "$2" at the next one's start are no phrase. */
const SEPARATOR = "(?:[ \\t]*[:=][ \\t]*|[ \\t]+of[ \\t]+|[ \\t]*)";
const BEFORE = "(?<![\\w$@./\\\\-])";
/** Where an amount may start: not inside another number (`1,2`), so each run is scanned once. */
const AMOUNT_BEFORE = "(?<![\\w$@./\\\\,+\\-\u2212])";

const PATTERNS: readonly RegExp[] = [
  // budget $2, budget: $2, max budget of $2, budget 2 USD; a bare `budget $` is read (and refused).
  new RegExp(
    `${BEFORE}(?:max(?:imum)?[ \\t]+)?budget${SEPARATOR}(?<amount>${DOLLAR}|${NUMBER_USD})`,
    "gid",
  ),
  // max $2, maximum: $2, max cost $2, max 2 USD.
  new RegExp(
    `${BEFORE}max(?:imum)?(?:[ \\t]+(?:cost|spend))?${SEPARATOR}(?<amount>${DOLLAR_NUMBER}|${NUMBER_USD})`,
    "gid",
  ),
  // $2 max, $2 budget, 2 USD max; the amount ends in a letter or digit, so `$2, max 3` is not one.
  new RegExp(
    `${AMOUNT_BEFORE}(?<amount>${SIGN}\\$(?=${SIGN}[\\d.])[\\w.,+\\-\u2212]{0,64}?\\w|${NUMBER_USD})[ \\t]+(?:max(?:imum)?|budget)(?![\\w-])`,
    "gid",
  ),
];

interface Found {
  start: number;
  end: number;
  phrase: BudgetPhrase;
}

/** The budget phrases in the prose of `text`, and the text without them. */
export function readBudget(text: string): BudgetReading {
  const phrases: BudgetPhrase[] = [];
  const parts = splitProse(text).map((segment) => {
    if (!segment.prose) return segment.text;
    const found = findPhrases(segment.text);
    phrases.push(...found.map((f) => f.phrase));
    return found.length > 0 ? withoutPhrases(segment.text, found) : segment.text;
  });
  return { phrases, text: phrases.length > 0 ? parts.join("") : text };
}

function findPhrases(text: string): Found[] {
  const all: Found[] = [];
  for (const pattern of PATTERNS) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const span = match.indices?.groups?.amount;
      const amount = match.groups?.amount;
      if (!span || amount === undefined) continue;
      // A sentence's full stop or comma after the amount is not part of it.
      const token = amount.replace(/[.,]+$/, "");
      const end =
        span[0] + token.length === span[1] ? match.index + match[0].length : span[0] + token.length;
      // Said back as the whole phrase: "`budget $0` was not allowed as a budget".
      const phrase = { ...parseAmount(token), written: text.slice(match.index, end) };
      all.push({ start: match.index, end, phrase });
    }
  }
  // The first phrase at a place wins (`budget $2 max` is one budget).
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Found[] = [];
  for (const found of all) {
    const last = kept.at(-1);
    if (!last || found.start >= last.end) kept.push(found);
  }
  return kept;
}

const PLAIN_AMOUNT = /^(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;

/** `$2.50` -> 2.5; `$0`, `$-1`, `$1e9`, `$` -> refused, with why. */
export function parseAmount(token: string): BudgetPhrase {
  const written = token.trim();
  const refuse = (reason: string, verdict: "not understood" | "not allowed" = "not allowed") =>
    ({ kind: "refused", written, verdict, reason }) satisfies BudgetPhrase;
  const bare = written
    .replace(/\s*(?:usd|dollars?)$/i, "")
    .replace("$", "")
    .trim();
  if (/^[-\u2212]|^\$[-\u2212]/.test(written) || /^[-\u2212]/.test(bare)) {
    return refuse("a budget cannot be negative");
  }
  if (bare === "") return refuse("it names no amount", "not understood");
  if (!PLAIN_AMOUNT.test(bare)) {
    return refuse(
      "an amount is written in digits, with cents after a point: `$2`, `$2.50`",
      "not understood",
    );
  }
  const usd = Number(bare.replace(/,/g, ""));
  if (usd === 0) return refuse("a budget of $0 would stop the job before it starts");
  if (!(usd >= 0.01)) return refuse("a budget must be at least one cent");
  // More digits than a number holds reads as Infinity: capped like any amount above the ceiling.
  return { kind: "amount", usd, written };
}

/**
 * The text without the phrases, and without the comma, colon or brackets
 * that only held them: `fix this, budget $2.` -> `fix this.`,
 * `budget $2: fix this` -> `fix this`, `fix this (budget $2) now` -> `fix this now`.
 */
function withoutPhrases(text: string, found: readonly Found[]): string {
  const mark = sentinel(text);
  let marked = "";
  let at = 0;
  for (const f of found) {
    marked += text.slice(at, f.start) + mark;
    at = f.end;
  }
  marked += text.slice(at);
  const m = escapeRegExp(mark);
  return marked
    .replace(new RegExp(`[ \\t]*\\(\\s*${m}\\s*\\)`, "g"), "")
    .replace(new RegExp(`[ \\t]*[,;][ \\t]*${m}[ \\t]*(?=[.!?)\\n]|$)`, "g"), "")
    .replace(new RegExp(`[ \\t]*${m}[ \\t]*(?=[.!?)\\n]|$)`, "g"), "")
    .replace(new RegExp(`${m}[ \\t]*[,;:]?[ \\t]*`, "g"), "");
}

/** A character the text does not hold, to mark where a phrase was. */
function sentinel(text: string): string {
  for (let code = 0xe000; code <= 0xf8ff; code++) {
    const char = String.fromCharCode(code);
    if (!text.includes(char)) return char;
  }
  return "\u0000";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The job's cost cap, and what the tracking comment and the report say about it. */
export interface JobBudget {
  usd: number;
  /** Said when the request named a budget (set, capped, or refused). */
  note?: string | undefined;
}

function usd(amount: number): string {
  if (!Number.isFinite(amount) || amount >= 1e12) return "an amount too large to count";
  return `$${amount.toFixed(2)}`;
}

/**
 * The cap for a job whose request holds `phrases`: the lowest amount named,
 * within the per-request ceiling; the usual cap when none, or none usable.
 */
export function budgetFor(phrases: readonly BudgetPhrase[], config: RepoConfig): JobBudget {
  const usual = config.maxCostUsd;
  const perRequest = config.maxCostPerRequestUsd;
  const ceiling = perRequest ?? usual;
  const ceilingKey = perRequest === undefined ? "max_cost_usd" : "max_cost_per_request_usd";
  const amounts = phrases.flatMap((p) => (p.kind === "amount" ? [p.usd] : []));
  if (amounts.length > 0) {
    const asked = Math.min(...amounts);
    if (asked > ceiling) {
      return {
        usd: ceiling,
        note: `💰 Requested budget ${usd(asked)} capped at ${usd(ceiling)} (${ceilingKey}): the job stops once it has spent ${usd(ceiling)}.`,
      };
    }
    return {
      usd: asked,
      note: `💰 Budget ${usd(asked)}, as requested: the job stops once it has spent that.`,
    };
  }
  const refused = phrases.find((p) => p.kind === "refused");
  if (!refused) return { usd: usual };
  return {
    usd: usual,
    note: `💰 ${inlineCode(refused.written, 40)} was ${refused.verdict} as a budget (${refused.reason}), so the job runs with the usual cap of ${usd(usual)} (max_cost_usd). A budget looks like \`budget $2\`, up to ${usd(ceiling)} (${ceilingKey}).`,
  };
}

/** Where a request's words are its requester's own: a comment, a review comment, a review, a new issue's description. */
const OWN_WORDS: ReadonlySet<JobRequest["source"]["kind"]> = new Set([
  "issue_comment",
  "review_comment",
  "review",
  "issue",
]);

export interface BudgetedRequests {
  /** The config with the job's cap in `maxCostUsd` and the note in `budgetNote`. */
  config: RepoConfig;
  /** The requests with their budget phrases taken out of the instruction. */
  request: JobRequest;
  earlierRequests: JobRequest[] | undefined;
}

/**
 * The budget of a job that answers `request` (and the requests folded into
 * it, oldest first): the newest request that names one decides. A label's
 * instruction is the issue's own text, someone else's words: it names no
 * budget, and neither does an event.
 */
export function applyRequestBudget(
  config: RepoConfig,
  request: JobRequest,
  earlierRequests: readonly JobRequest[] | undefined,
): BudgetedRequests {
  const read = (r: JobRequest) =>
    OWN_WORDS.has(r.source.kind) ? readBudget(r.instruction) : { phrases: [], text: r.instruction };
  const strip = (r: JobRequest, text: string): JobRequest =>
    text === r.instruction ? r : { ...r, instruction: text };
  const all = [...(earlierRequests ?? []), request].map((r) => ({ r, reading: read(r) }));
  const decisive = all.findLast((entry) => entry.reading.phrases.length > 0);
  const budget = budgetFor(decisive?.reading.phrases ?? [], config);
  const out = all.map(({ r, reading }) => strip(r, reading.text));
  return {
    config: {
      ...config,
      maxCostUsd: budget.usd,
      ...(budget.note ? { budgetNote: budget.note } : {}),
    },
    request: out.at(-1) ?? request,
    earlierRequests: earlierRequests ? out.slice(0, -1) : undefined,
  };
}
