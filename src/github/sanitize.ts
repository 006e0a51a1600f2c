import type { Redactor } from "../agent/redact.js";
import { INVISIBLE_CHAR, stripInvisible } from "../secrets/invisible.js";
import { stripHiddenMarkup } from "./sanitize-markup.js";

/**
 * Text from issues and comments reaches the model as data, and data must not
 * carry what a maintainer reading the thread on GitHub cannot see: invisible
 * and bidi characters, HTML comments (also inside table cells), hidden
 * elements and attributes, link targets and titles, image alt text.
 * `sanitizeUntrusted` removes those (keeping visible text, code blocks and
 * newlines, and noting where a link or image was) and redacts secrets last,
 * so a token split by zero-width characters is rejoined before it is
 * recognised.
 */
export function sanitizeUntrusted(text: string, redact: Redactor): string {
  return redact(stripHiddenMarkup(stripInvisibleEntities(stripInvisible(text))));
}

/** HTML names of invisible characters (they decode in rendered Markdown). */
const INVISIBLE_ENTITY_NAMES = new Set([
  "ZeroWidthSpace",
  "NegativeVeryThinSpace",
  "NegativeThinSpace",
  "NegativeMediumSpace",
  "NegativeThickSpace",
  "zwnj",
  "zwj",
  "lrm",
  "rlm",
  "shy",
  "NoBreak",
  "ApplyFunction",
  "af",
  "InvisibleTimes",
  "it",
  "InvisibleComma",
  "ic",
]);

const ENTITY = /&(?:#(\d{1,8});?|#[xX]([0-9a-fA-F]{1,7});?|([A-Za-z][A-Za-z0-9]{1,31});)/g;

/**
 * Removes entity-encoded invisible characters (`&#8203;`, `&#xE0041;`,
 * `&zwj;`), which GitHub decodes into the very characters stripped above.
 * Entities for visible characters stay as written: they hide nothing. This
 * runs before code is told apart from prose, so an entity in code goes too:
 * rare there, and removing it is the safe side.
 */
export function stripInvisibleEntities(text: string): string {
  return text.replace(ENTITY, (entity, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return INVISIBLE_ENTITY_NAMES.has(name) ? "" : entity;
    const codePoint = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? "", 16);
    if (codePoint === 0 || codePoint > 0x10ffff) return "";
    const char = String.fromCodePoint(codePoint);
    return INVISIBLE_CHAR.test(char) ? "" : entity;
  });
}
