/** Where a secret stands in a text, and the rule that knew it (`[redacted: <rule>]`). */
export interface SecretMatch {
  start: number;
  end: number;
  rule: string;
}

/** One family of secrets: finds every match in a text. */
export interface SecretRule {
  id: string;
  /**
   * Lowercase strings of which every text this rule can find something in
   * contains at least one, once lowercased (each is a literal that all of the
   * rule's patterns require); the detector does not run the rule on other
   * texts. Absent: the rule runs on every text.
   */
  keywords?: readonly string[];
  find(text: string): SecretMatch[];
}

/**
 * Whether `rule` may find something in the text whose lowercased form is
 * `lower`. Most texts (a comment, a log line) hold none of a token family's
 * prefixes, and a rule that is not run costs nothing. V8 compiles each
 * regular expression to bytecode on its first use and to machine code when
 * it is used again, and compiling the rules' expressions was most of what
 * the detector cost a process that redacts a few texts (in the Action, on
 * the way to its first model request: 41M instructions of 496M; 9M with
 * keywords).
 */
export function mayFind(rule: SecretRule, lower: string): boolean {
  return rule.keywords === undefined || rule.keywords.some((word) => lower.includes(word));
}
