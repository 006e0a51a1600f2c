/**
 * HTML built from template literals where every interpolated value is
 * escaped unless it is itself built with `html` (or is a list of such).
 * Nothing else produces markup in the pages, so a value from a job (a
 * title, a tool's input, a report) is always text, never markup.
 */

const RAW = Symbol("html");

export interface Html {
  readonly [RAW]: string;
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function isHtml(value: unknown): value is Html {
  return typeof value === "object" && value !== null && RAW in value;
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return "";
  if (isHtml(value)) return value[RAW];
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item)).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return { [RAW]: out };
}

/** Markup from this module's own constants only (an SVG path built from numbers). */
export function trusted(markup: string): Html {
  return { [RAW]: markup };
}

export function htmlText(value: Html): string {
  return value[RAW];
}
