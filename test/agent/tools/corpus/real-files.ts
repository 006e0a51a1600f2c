import { readFileSync } from "node:fs";

/**
 * Files of real projects (test/fixtures/real: expressjs/express and
 * psf/requests, unmodified), so the corpus edits and searches code as it is
 * really written: express's mixed quote styles and missing semicolons,
 * requests' tab-indented Makefile and type-annotated Python.
 */
const ROOT = new URL("../../../fixtures/real/", import.meta.url);

export const real = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

export const expressUtils = real("express/lib/utils.js");
export const expressResponse = real("express/lib/response.js");
export const expressRequest = real("express/lib/request.js");
export const expressCi = real("express/.github/workflows/ci.yml");
export const attachmentTest = real("express/test/res.attachment.js");
export const requestsMakefile = real("requests/Makefile");
export const requestsHooks = real("requests/src/requests/hooks.py");
export const requestsAuth = real("requests/src/requests/auth.py");
