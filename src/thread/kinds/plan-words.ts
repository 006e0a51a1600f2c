import { stripPhrase } from "../phrase.js";

/**
 * The words that ask for a plan or for its go, read from a request with
 * the trigger phrase taken out. Pure.
 *
 * - `@agent plan <task>`: plan the task (none: the thread's own request).
 * - `@agent go`, `@agent go ahead`, `@agent go, but keep the old API`,
 *   `@agent go but keep the old API`, `@agent go: skip the docs`: carry out
 *   the thread's latest plan, with the words after "go" as changes to it.
 *
 * Anything else ("go through the README and fix typos", "go-live
 * checklist", "planning is hard") is an ordinary request: "go" counts only
 * alone, or followed by punctuation or a word that introduces a change
 * (but, with, except, without, however, only, please): "go and fix the
 * tests" is a request of its own.
 */

export type PlanCommand = { kind: "plan"; task: string } | { kind: "go"; changes: string };

// \u2014 and \u2013: the em and en dash (scripts/bundle-action.mjs says why not the characters).
const PLAN =
  /^(?:please\s+)?(?:make\s+a\s+|write\s+a\s+)?plan\b(?:\s+(?:for|how\s+to)\b)?[\s:,\u2014\u2013-]*([\s\S]*)$/i;
const GO =
  /^(?:please\s+)?go(?:\s+ahead)?(?:\s+with\s+(?:the|this|that)\s+plan)?(?:[.!]+)?(?:\s*[,:;\u2014\u2013]+\s*|\s+-+\s+|\s+(?=(?:but|with|except|without|however|only|please)\b)|\s*$)([\s\S]*)$/i;

/** Whether the request asks for a plan or a go, and the task or changes it carries. */
export function planCommandOf(instruction: string, triggerPhrase: string): PlanCommand | undefined {
  const words = stripPhrase(instruction, triggerPhrase).trim();
  const go = GO.exec(words);
  if (go) {
    const changes = (go[1] ?? "").trim();
    return { kind: "go", changes: /^please[.!]*$/i.test(changes) ? "" : changes };
  }
  const plan = PLAN.exec(words);
  if (plan) return { kind: "plan", task: (plan[1] ?? "").trim() };
  return undefined;
}
