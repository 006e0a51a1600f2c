/**
 * The JSON and YAML documents the deps code reads (package.json, the tools'
 * settings, packuments) are checked field by field: an object is a record,
 * and anything else reads as an empty one.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value as a record, or an empty one. */
export function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
