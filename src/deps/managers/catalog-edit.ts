import { isMap, isScalar, parseDocument, Scalar, stringify } from "yaml";
import { findValueSpan } from "./package-json-edit.js";

/**
 * Editing one range in a catalog file (pnpm-workspace.yaml, yarn's
 * .yarnrc.yml: the same `catalog:` and `catalogs:` maps; bun's in
 * package.json) without writing the file anew: the new range replaces
 * exactly the old value's characters, so comments, order and quoting stay
 * as the maintainer had them, and the diff is one line per bump (as
 * package-json-edit.ts does for package.json's dependencies).
 */

export class CatalogEditError extends Error {
  override name = "CatalogEditError";
}

/** `catalog` "default" is `catalog:` (or `catalogs.default`), any other `catalogs.<name>`. */
export function setCatalogSpec(text: string, catalog: string, name: string, spec: string): string {
  // bun keeps its catalogs in package.json, which is JSON (and starts so).
  if (text.trimStart().startsWith("{")) return setJsonCatalogSpec(text, catalog, name, spec);
  const paths =
    catalog === "default"
      ? [
          ["catalog", name],
          ["catalogs", "default", name],
        ]
      : [["catalogs", catalog, name]];
  for (const path of paths) {
    const edited = setYamlString(text, path, spec);
    if (edited !== undefined) return edited;
  }
  throw new CatalogEditError(missing(catalog, name));
}

/**
 * The string at `path` (map keys from the top) replaced by `value` in its
 * old quoting, or undefined when no string is written there.
 */
export function setYamlString(
  text: string,
  path: readonly string[],
  value: string,
): string | undefined {
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) {
    throw new CatalogEditError(`the file is not valid YAML: ${doc.errors[0]?.message}`);
  }
  const parent = doc.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  const node = parent.get(path.at(-1), true);
  if (!isScalar(node) || typeof node.value !== "string" || !node.range) return undefined;
  const [start, end] = node.range;
  return `${text.slice(0, start)}${scalarText(node, value)}${text.slice(end)}`;
}

/**
 * bun's catalogs, in the root package.json: under `workspaces` (bun's
 * documented place) or at the top level, which bun reads too.
 */
function setJsonCatalogSpec(text: string, catalog: string, name: string, spec: string): string {
  const maps =
    catalog === "default"
      ? [
          ["workspaces", "catalog"],
          ["catalog"],
          ["workspaces", "catalogs", "default"],
          ["catalogs", "default"],
        ]
      : [
          ["workspaces", "catalogs", catalog],
          ["catalogs", catalog],
        ];
  for (const path of maps) {
    const span = findValueSpan(text, [...path, name]);
    if (span && text[span.start] === '"') {
      return `${text.slice(0, span.start)}${JSON.stringify(spec)}${text.slice(span.end)}`;
    }
  }
  throw new CatalogEditError(missing(catalog, name));
}

function missing(catalog: string, name: string): string {
  return `the ${catalog === "default" ? "default catalog" : `catalog "${catalog}"`} has no "${name}" to update`;
}

/** The range in the old value's quoting; a plain one that cannot stay plain (`>=1 <2`) is quoted. */
function scalarText(node: Scalar, spec: string): string {
  if (node.type === Scalar.QUOTE_SINGLE) return `'${spec.replaceAll("'", "''")}'`;
  if (node.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(spec);
  return stringify(spec).trimEnd();
}
