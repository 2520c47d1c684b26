/**
 * List prices in USD per million tokens, matched by model-name prefix (longest wins), beside the
 * model catalog. They are an estimate for orientation (`/usage`, `total_cost_usd`), not a bill:
 * a model without a known price has no cost. What caching saved is the cost as if nothing were
 * cached (cache reads and writes at the input price) less the cost with the cache's own prices.
 */
import type { Usage } from '../core/usage.js';

export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const p = (input: number, output: number, cacheRead = input / 10, cacheWrite = input * 1.25): Price => ({ input, output, cacheRead, cacheWrite });

/** Longest matching prefix wins. */
const PRICES: [string, Price][] = [
  ['claude-opus-4-1', p(15, 75)],
  ['claude-opus-4-0', p(15, 75)],
  ['claude-opus', p(5, 25)],
  ['claude-sonnet', p(3, 15)],
  ['claude-haiku', p(1, 5)],
  ['us.anthropic.claude-sonnet', p(3, 15)],
  ['anthropic.claude-sonnet', p(3, 15)],
  ['gpt-5-mini', p(0.25, 2, 0.025, 0.25)],
  ['gpt-5', p(1.25, 10, 0.125, 1.25)],
  ['gpt-4.1', p(2, 8, 0.5, 2)],
  ['gpt-4o', p(2.5, 10, 1.25, 2.5)],
  ['o4-mini', p(1.1, 4.4, 0.275, 1.1)],
  ['gemini-2.5-pro', p(1.25, 10, 0.31, 1.25)],
  ['gemini-2.5-flash', p(0.3, 2.5, 0.075, 0.3)],
  ['amazon.nova-pro', p(0.8, 3.2, 0.2, 0.8)],
];

export function priceOf(model: string): Price | undefined {
  let best: [string, Price] | undefined;
  for (const entry of PRICES) {
    if (model.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Estimated cost of `usage` on `model` at list prices; undefined when the model has no price. */
export function costOf(model: string, usage: Usage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  return (usage.input * price.input + usage.output * price.output + usage.cache_read * price.cacheRead + usage.cache_write * price.cacheWrite) / 1e6;
}

/**
 * Estimated cost of `usage` on `model` had nothing been cached: cache reads and cache writes
 * priced as plain input. Undefined when the model has no price.
 */
export function costWithoutCacheOf(model: string, usage: Usage): number | undefined {
  return costOf(model, { ...usage, input: usage.input + usage.cache_read + usage.cache_write, cache_read: 0, cache_write: 0 });
}
