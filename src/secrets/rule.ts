/** Where a secret stands in a text, and the rule that knew it (`[redacted: <rule>]`). */
export interface SecretMatch {
  start: number;
  end: number;
  rule: string;
}

/** One family of secrets: finds every match in a text. */
export interface SecretRule {
  id: string;
  find(text: string): SecretMatch[];
}
