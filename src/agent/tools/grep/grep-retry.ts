import { compileSearchPattern } from "./grep-pattern.js";
import type { LineTest } from "./grep-scan.js";

/** One way to run a search: the test for each line, and the pattern as the model wrote it. */
export interface SearchQuery extends LineTest {
  written: string;
}

export function regexQuery(pattern: string, caseInsensitive = false): SearchQuery {
  const compiled = compileSearchPattern(pattern, caseInsensitive);
  return {
    regex: compiled.regex,
    literals: compiled.literals,
    ignoreCase: compiled.ignoreCase,
    written: pattern,
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
export function otherReadings(pattern: string, caseInsensitive: boolean): Reading[] {
  const readings: Reading[] = [];
  const slashes = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (slashes) {
    const inner = slashes[1] ?? "";
    const query = tryQuery(inner, caseInsensitive || (slashes[2]?.includes("i") ?? false));
    if (query) {
      readings.push({
        query,
        intro: `No matches for /${pattern}/: the slashes are part of that pattern. Without them (/${inner}/${query.ignoreCase ? ", without case" : ""}) it matches:`,
      });
    }
  }
  if (pattern.includes("\\|")) {
    const alternation = pattern.replace(/\\\|/g, "|");
    const query = tryQuery(alternation, caseInsensitive);
    if (query) {
      readings.push({
        query,
        intro: `No matches for /${pattern}/, where \\| is a literal "|". With | as "or" (/${alternation}/) it matches:`,
      });
    }
  }
  if (REGEX_OPERATORS.test(pattern) && !pattern.includes("\n")) {
    const escaped = pattern.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
    readings.push({
      query: {
        regex: new RegExp(escaped, caseInsensitive ? "isu" : "su"),
        literals: caseInsensitive ? null : [pattern],
        ignoreCase: caseInsensitive,
        written: pattern,
      },
      intro: `No matches for /${pattern}/ as a regular expression, where ( ) [ ] { } . * + ? | are operators. As plain text it is found here (escape those characters with a backslash to search for them in a regular expression):`,
    });
  }
  return readings;
}

function tryQuery(pattern: string, caseInsensitive: boolean): SearchQuery | null {
  try {
    return regexQuery(pattern, caseInsensitive);
  } catch {
    return null;
  }
}
