import * as z from "../../zod.js";
import type { ModelPrice, Usage } from "./model.js";
import type { ModelSpec } from "./model-spec.js";

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

const BY_LONGEST_PREFIX = [...PRICES].sort((a, b) => b[0].length - a[0].length);

/**
 * A prefix owns an id it starts, when what follows is empty, a date
 * ("-20250929"), a provider's version ("@20250929", "-v1:0") or a suffix
 * ("[1m]"), but not another version ("claude-opus-4" is not "claude-opus-4-9")
 * nor a longer name ("claude-sonnet-4-50").
 */
function ownsId(prefix: string, id: string): boolean {
  if (!id.startsWith(prefix)) return false;
  const rest = id.slice(prefix.length);
  if (rest === "") return true;
  if (/^[a-z0-9]/.test(rest)) return false;
  return !/^-\d{1,2}(?!\d)/.test(rest);
}

/**
 * The table's price for a Claude model id, or null when the table does not
 * know it: an unknown model is never priced as a guess, so a run under a USD
 * cap refuses to start until the config's `pricing:` gives its price.
 */
export function priceOf(modelId: string): ModelPrice | null {
  const id = modelId.toLowerCase();
  for (const [prefix, entry] of BY_LONGEST_PREFIX) {
    if (ownsId(prefix, id)) return entry;
  }
  return null;
}

/**
 * USD cost of usage by the id that answered, for a model that declares no
 * price of its own (test doubles; every provider adapter declares one, null
 * when unknown, and the loop refuses such a model under a cap). An id the
 * table does not know costs 0 rather than a guess.
 */
export function costOf(modelId: string, usage: Usage): number {
  const known = priceOf(modelId);
  return known ? costWith(known, usage) : 0;
}

/** USD cost of usage at a given price. */
export function costWith(p: ModelPrice, usage: Usage): number {
  return (
    (usage.inputTokens * p.input +
      usage.outputTokens * p.output +
      usage.cacheWriteTokens * p.cacheWrite +
      usage.cacheReadTokens * p.cacheRead) /
    M
  );
}

/** The table's context window, or UNKNOWN_CONTEXT_WINDOW for a model it does not know. */
export function contextWindowOf(modelId: string): number {
  return priceOf(modelId)?.contextWindow ?? UNKNOWN_CONTEXT_WINDOW;
}

/**
 * OpenAI's list prices (https://openai.com/api/pricing, "Standard" tier) and
 * context windows (https://platform.openai.com/docs/models), read 2026-11.
 * OpenAI caches prompts on its own and bills no cache writes. An id matches
 * only exactly or with a date suffix ("gpt-4.1-2025-04-14"): a new model
 * must not silently take an older one's price.
 */
const OPENAI_PRICES: ReadonlyArray<readonly [id: string, price: ModelPrice]> = [
  ["gpt-5", openaiPrice(1.25, 10, 0.125, 400 * K)],
  ["gpt-5-mini", openaiPrice(0.25, 2, 0.025, 400 * K)],
  ["gpt-5-nano", openaiPrice(0.05, 0.4, 0.005, 400 * K)],
  ["gpt-4.1", openaiPrice(2, 8, 0.5, 1_047_576)],
  ["gpt-4.1-mini", openaiPrice(0.4, 1.6, 0.1, 1_047_576)],
  ["gpt-4.1-nano", openaiPrice(0.1, 0.4, 0.025, 1_047_576)],
  ["gpt-4o", openaiPrice(2.5, 10, 1.25, 128 * K)],
  ["gpt-4o-mini", openaiPrice(0.15, 0.6, 0.075, 128 * K)],
  ["o3", openaiPrice(2, 8, 0.5, 200 * K)],
  ["o4-mini", openaiPrice(1.1, 4.4, 0.275, 200 * K)],
];

function openaiPrice(input: number, output: number, cacheRead: number, contextWindow: number) {
  return { input, output, cacheWrite: input, cacheRead, contextWindow };
}

/**
 * Compaction needs a window even for a model nobody described: a small one,
 * so a self-hosted model compacts early rather than overflowing. The config's
 * `context_window` (in its `pricing:` entry) replaces it.
 */
export const UNKNOWN_CONTEXT_WINDOW = 32 * K;

/** A price from the config's `pricing:`: USD per million tokens. */
export interface PriceSetting {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
  contextWindow?: number | undefined;
}

/**
 * Bedrock ids name the vendor and a version ("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
 * Vertex ids a date after "@". Both are priced as the Claude model inside,
 * which must start the id or follow a region's and the vendor's prefix
 * ("global.anthropic."), after a foundation-model ARN's last "/".
 */
function claudeIdOf(id: string): string | undefined {
  const name = id.slice(id.lastIndexOf("/") + 1);
  return /^(?:[a-z-]+\.)?(?:anthropic\.)?(claude-.*)$/i.exec(name)?.[1];
}

/** The table's price for a model, or null when the table does not know it. */
function tablePrice(spec: ModelSpec): ModelPrice | null {
  if (spec.provider === "openai") {
    const id = spec.id.toLowerCase();
    const found = OPENAI_PRICES.find(
      ([known]) =>
        id === known ||
        new RegExp(`^${known.replace(/\./g, "\\.")}-\\d{4}-\\d{2}-\\d{2}$`).test(id),
    );
    return found ? found[1] : null;
  }
  const claude = spec.provider === "anthropic" ? spec.id : claudeIdOf(spec.id);
  return claude === undefined ? null : priceOf(claude);
}

/**
 * What a model costs and how much context it has: the config's `pricing:`
 * entry for it (keyed by the model as written, e.g. "openai/my-model") wins
 * over the table; null when neither knows the price.
 */
export function resolvePrice(
  spec: ModelSpec,
  configured: Readonly<Record<string, PriceSetting>> = {},
): { price: ModelPrice | null; contextWindow: number } {
  const known = tablePrice(spec);
  const setting =
    configured[`${spec.provider}/${spec.id}`] ??
    (spec.provider === "anthropic" ? configured[spec.id] : undefined);
  if (!setting) {
    return { price: known, contextWindow: known?.contextWindow ?? UNKNOWN_CONTEXT_WINDOW };
  }
  const contextWindow = setting.contextWindow ?? known?.contextWindow ?? UNKNOWN_CONTEXT_WINDOW;
  return {
    price: {
      input: setting.input,
      output: setting.output,
      cacheRead: setting.cacheRead ?? setting.input,
      cacheWrite: setting.cacheWrite ?? setting.input * (spec.provider === "openai" ? 1 : 1.25),
      contextWindow,
    },
    contextWindow,
  };
}

const perMillion = z
  .number({ error: "expected US dollars per million tokens" })
  .check(z.nonnegative({ error: "expected US dollars per million tokens, not below 0" }));

/**
 * One entry of the config's `pricing:` (snake_case in the file): USD per
 * million tokens, and the context window when the table does not know it.
 */
export const priceSettingSchema = z.pipe(
  z.strictObject({
    input: perMillion,
    output: perMillion,
    cache_read: z.optional(perMillion),
    cache_write: z.optional(perMillion),
    context_window: z.optional(
      z
        .number({ error: "expected a number of tokens" })
        .check(
          z.int({ error: "expected a whole number of tokens" }),
          z.gte(1024, { error: "expected a context window of at least 1024 tokens" }),
        ),
    ),
  }),
  z.transform(
    (entry): PriceSetting => ({
      input: entry.input,
      output: entry.output,
      cacheRead: entry.cache_read,
      cacheWrite: entry.cache_write,
      contextWindow: entry.context_window,
    }),
  ),
);
