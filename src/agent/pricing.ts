import type { Usage } from "./model.js";

/** USD per million tokens, and the context window in tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** 5-minute cache write (the TTL `cache_control: {type: "ephemeral"}` gets). */
  cacheWrite: number;
  cacheRead: number;
  contextWindow: number;
}

const K = 1_000;
const M = 1_000_000;

function price(input: number, output: number, cacheRead: number, contextWindow: number) {
  // A 5-minute cache write costs 1.25x the base input rate on every current model.
  return { input, output, cacheWrite: input * 1.25, cacheRead, contextWindow };
}

/**
 * Prices from https://platform.claude.com/docs/en/about-claude/pricing ("Model
 * pricing") and context windows from each model's overview page under
 * https://platform.claude.com/docs/en/models/ (read 2026-11). Matched by id
 * prefix, longest first, so dated ids ("claude-sonnet-4-5-20250929") and
 * suffixes ("[1m]") find their family. Update here when Anthropic changes them.
 */
const PRICES: ReadonlyArray<readonly [prefix: string, price: ModelPrice]> = [
  ["claude-fable-5-1", price(10, 50, 0.25, M)],
  ["claude-fable-5", price(10, 50, 1, M)],
  ["claude-mythos-5-1", price(10, 50, 0.25, M)],
  ["claude-mythos-5", price(10, 50, 1, M)],
  ["claude-opus-5-5", price(4, 20, 0.2, M)],
  ["claude-opus-5", price(5, 25, 0.5, M)],
  ["claude-opus-4-8", price(5, 25, 0.5, M)],
  ["claude-opus-4-7", price(5, 25, 0.5, M)],
  ["claude-opus-4-6", price(5, 25, 0.5, M)],
  ["claude-opus-4-5", price(5, 25, 0.5, 200 * K)],
  ["claude-opus-4-1", price(15, 75, 1.5, 200 * K)],
  ["claude-opus-4", price(15, 75, 1.5, 200 * K)],
  ["claude-sonnet-5-5", price(2, 10, 0.1, M)],
  ["claude-sonnet-5", price(2, 10, 0.2, M)],
  ["claude-sonnet-4-6", price(3, 15, 0.3, M)],
  ["claude-sonnet-4-5", price(3, 15, 0.3, 200 * K)],
  ["claude-sonnet-4", price(3, 15, 0.3, 200 * K)],
  ["claude-haiku-4-5", price(1, 5, 0.1, 200 * K)],
];

/**
 * For ids we do not know (a newer minor version, a provider-specific id): the
 * family's usual prices, and the smallest current context window so
 * compaction starts early rather than too late.
 */
const FAMILY_DEFAULTS: ReadonlyArray<readonly [word: string, price: ModelPrice]> = [
  ["opus", price(5, 25, 0.5, 200 * K)],
  ["sonnet", price(3, 15, 0.3, 200 * K)],
  ["haiku", price(1, 5, 0.1, 200 * K)],
];
const DEFAULT_PRICE: ModelPrice = price(3, 15, 0.3, 200 * K);

const BY_LONGEST_PREFIX = [...PRICES].sort((a, b) => b[0].length - a[0].length);

/** A prefix owns an id unless the id continues its version ("claude-opus-4" is not "claude-opus-4-9"). */
function ownsId(prefix: string, id: string): boolean {
  if (!id.startsWith(prefix)) return false;
  return !/^-\d{1,2}(?!\d)/.test(id.slice(prefix.length));
}

export function priceOf(modelId: string): ModelPrice {
  const id = modelId.toLowerCase();
  for (const [prefix, entry] of BY_LONGEST_PREFIX) {
    if (ownsId(prefix, id)) return entry;
  }
  for (const [word, entry] of FAMILY_DEFAULTS) {
    if (id.includes(word)) return entry;
  }
  return DEFAULT_PRICE;
}

/** USD cost of one or more requests' usage. */
export function costOf(modelId: string, usage: Usage): number {
  const p = priceOf(modelId);
  return (
    (usage.inputTokens * p.input +
      usage.outputTokens * p.output +
      usage.cacheWriteTokens * p.cacheWrite +
      usage.cacheReadTokens * p.cacheRead) /
    M
  );
}

export function contextWindowOf(modelId: string): number {
  return priceOf(modelId).contextWindow;
}
