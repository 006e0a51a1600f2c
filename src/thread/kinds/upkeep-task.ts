import type { JobRequest, JobTask } from "../../requests/request.js";
import { stripPhrase } from "../phrase.js";
import { planCommandOf } from "./plan-words.js";

/**
 * Which job a request on a pull request is. An event says so itself; a
 * comment names an upkeep job only when that is all it says ("@agent
 * review", "@agent fix CI", "@agent resolve conflicts", "@agent update
 * branch"), so "@agent review the README and fix typos" stays an ordinary
 * request to the agent.
 */

const COMMANDS: Array<[RegExp, JobTask]> = [
  [/^(please\s+)?(do\s+a\s+)?review(\s+(this|the)(\s+(pr|pull\s+request|changes))?)?$/i, "review"],
  [/^(please\s+)?fix\s+(the\s+)?(ci|build|checks|failing\s+(ci|checks|tests))$/i, "fix_ci"],
  [
    /^(please\s+)?(resolve\s+(the\s+)?(merge\s+)?conflicts|update\s+(the\s+)?branch)$/i,
    "update_branch",
  ],
];

export function taskOf(request: JobRequest, triggerPhrase: string): JobTask {
  if (request.task) return request.task;
  // A plan, or its go, is asked for on issues and pull requests alike (plan-words.ts).
  const planned = planCommandOf(request.instruction, triggerPhrase);
  if (planned && request.source.kind !== "label") return planned.kind;
  if (request.target.kind !== "pull_request") return "agent";
  const words = stripPhrase(request.instruction, triggerPhrase)
    .replace(/[.!\s]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  for (const [pattern, task] of COMMANDS) if (pattern.test(words)) return task;
  return "agent";
}
