/**
 * JSON read from a file the way npm, pnpm and yarn read package.json: a
 * leading byte order mark (what some Windows editors write; vite's
 * playground keeps one on purpose) is skipped, not a syntax error.
 */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text.replace(/^\uFEFF/, ""));
}
