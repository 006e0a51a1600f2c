import { streamingFetch } from "../../src/github/rest/http-fetch.js";

/**
 * The Anthropic SDK's two transports: the global fetch (undici: the App's
 * and the CLI's) and node:http (http-fetch.ts `streamingFetch`: the
 * Action's, which never loads undici). Model tests run over both.
 */
export const MODEL_TRANSPORTS: Array<[string, typeof fetch | undefined]> = [
  ["the global fetch", undefined],
  ["node:http (the Action's streamingFetch)", streamingFetch as unknown as typeof fetch],
];
