import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PAGES_CSS } from "./render/style.js";

/**
 * The pages' three files, from our own origin: htmx and its SSE extension
 * straight from their npm packages (no build step), and the stylesheet.
 * Read once, on first use.
 */

interface StaticFile {
  type: string;
  body: Buffer;
}

const require = createRequire(import.meta.url);

const SOURCES: Record<string, { type: string; load: () => Buffer }> = {
  "htmx.min.js": {
    type: "text/javascript; charset=utf-8",
    load: () => readFileSync(require.resolve("htmx.org/dist/htmx.min.js")),
  },
  "sse.js": {
    type: "text/javascript; charset=utf-8",
    load: () => readFileSync(require.resolve("htmx-ext-sse/dist/sse.js")),
  },
  "pages.css": { type: "text/css; charset=utf-8", load: () => Buffer.from(PAGES_CSS) },
};

const loaded = new Map<string, StaticFile>();

export function staticFile(name: string): StaticFile | undefined {
  const source = Object.hasOwn(SOURCES, name) ? SOURCES[name] : undefined;
  if (!source) return undefined;
  let file = loaded.get(name);
  if (!file) {
    file = { type: source.type, body: source.load() };
    loaded.set(name, file);
  }
  return file;
}
