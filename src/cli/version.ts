import { readFile } from "node:fs/promises";
import * as z from "../zod.js";

// Two levels up from both src/cli/version.ts (run through tsx) and
// build/cli/version.js (the published bin): the package's own package.json.
const PACKAGE_JSON = new URL("../../package.json", import.meta.url);

/** The version in package.json, for `patchwright --version`. */
export async function readVersion(): Promise<string> {
  const json: unknown = JSON.parse(await readFile(PACKAGE_JSON, "utf8"));
  return z.object({ version: z.string().check(z.minLength(1)) }).parse(json).version;
}
