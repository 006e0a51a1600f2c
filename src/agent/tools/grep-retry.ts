import type { GitGrepQuery } from "./grep-git.js";
import { compileSearchPattern } from "./grep-pattern.js";

/** A way to run a search: for git grep, and for the walk outside a repository. */
export type SearchQuery = GitGrepQuery & { regex: RegExp };

export function regexQuery(pattern: string): SearchQuery {
  const compiled = compileSearchPattern(pattern);
  return {
    expression: compiled.posix,
    fixed: false,
    ignoreCase: compiled.ignoreCase,
    written: pattern,
    regex: compiled.js,
  };
}

/** Another reading of a pattern that found nothing, and how to say what it found. */
export interface Reading {
  query: SearchQuery;
  intro: string;
}

const REGEX_OPERATORS = /[()[\]{}.*+?|\\^$]/;

/**
 * What the model may have meant by a pattern that matched nothing, most
 * likely first. Each is searched only if the ones before found nothing, and
 * what it finds is shown with the reading named, so "No matches" is never
 * the answer for a pattern read differently from how it was meant.
 */
export function otherReadings(pattern: string): Reading[] {
  const readings: Reading[] = [];
  const slashes = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (slashes) {
    const inner = `${slashes[2]?.includes("i") ? "(?i)" : ""}${slashes[1] ?? ""}`;
    const query = tryQuery(inner);
    if (query) {
      readings.push({
        query,
        intro: `No matches for /${pattern}/: the slashes are part of that pattern. Without them (/${inner}/) it matches:`,
      });
    }
  }
  if (pattern.includes("\\|")) {
    const alternation = pattern.replace(/\\\|/g, "|");
    const query = tryQuery(alternation);
    if (query) {
      readings.push({
        query,
        intro: `No matches for /${pattern}/, where \\| is a literal "|". With | as "or" (/${alternation}/) it matches:`,
      });
    }
  }
  if (REGEX_OPERATORS.test(pattern)) {
    readings.push({
      query: {
        expression: pattern,
        fixed: true,
        ignoreCase: false,
        written: pattern,
        regex: new RegExp(pattern.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"), "u"),
      },
      intro: `No matches for /${pattern}/ as a regular expression, where ( ) [ ] { } . * + ? | are operators. As plain text it is found here (escape those characters with a backslash to search for them in a regular expression):`,
    });
  }
  return readings;
}

function tryQuery(pattern: string): SearchQuery | null {
  try {
    return regexQuery(pattern);
  } catch {
    return null;
  }
}
