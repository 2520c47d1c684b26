/**
 * `/usage`: tokens, cache hits, an estimated cost of the session so far (compaction included) and
 * what the cache saved. Prices come from src/config/prices.ts (list prices); a model without a
 * known price shows tokens only. They are an estimate for orientation, not a bill.
 */
import { costOf, costWithoutCacheOf } from '../config/prices.js';
import { emptyUsage, addUsage, type Usage } from '../core/usage.js';

/** Usage per model (a session may switch models). */
export type SpendByModel = Map<string, Usage>;

export function addSpend(spend: SpendByModel, model: string, usage: Usage): void {
  spend.set(model, addUsage(spend.get(model) ?? emptyUsage(), usage));
}

const n = (v: number) => v.toLocaleString('en-US');
const usd = (v: number) => `$${v.toFixed(v < 1 ? 4 : 2)}`;

/** The lines of the /usage block. */
export function usageLines(spend: SpendByModel, context: { tokens: number; window: number }): string[] {
  let total = emptyUsage();
  let cost = 0;
  let withoutCache = 0;
  let priced = true;
  for (const [model, usage] of spend) {
    total = addUsage(total, usage);
    const spent = costOf(model, usage);
    if (spent === undefined) {
      if (usage.input + usage.output + usage.cache_read + usage.cache_write > 0) priced = false;
      continue;
    }
    cost += spent;
    withoutCache += costWithoutCacheOf(model, usage) ?? spent;
  }
  const prompt = total.input + total.cache_read + total.cache_write;
  const hitRate = prompt > 0 ? Math.round((total.cache_read / prompt) * 100) : 0;
  // The footer's and /context's measure: a share of the window.
  const pct = context.window > 0 ? Math.round((context.tokens / context.window) * 100) : 0;
  const lines = [
    `input        ${n(total.input)} tokens`,
    `output       ${n(total.output)} tokens`,
    `cache read   ${n(total.cache_read)} tokens (${hitRate}% of prompt tokens)`,
    `cache write  ${n(total.cache_write)} tokens`,
    priced ? `cost         ≈ ${usd(cost)} (list prices, compaction included)` : 'cost         unknown for this model (no list price)',
    priced ? cacheSavedLine(cost, withoutCache) : 'cache saved  unknown for this model (no list price)',
    `context      ${pct}% of the ${n(context.window)}-token window`,
  ];
  return lines;
}

/** Writing the cache costs more than plain input: until reads repay it, caching costs extra. */
function cacheSavedLine(cost: number, withoutCache: number): string {
  const saved = Number((withoutCache - cost).toFixed(10));
  const base = `(cost without caching ≈ ${usd(withoutCache)})`;
  return saved >= 0 ? `cache saved  ≈ ${usd(saved)} ${base}` : `cache saved  nothing yet: cache writes cost ≈ ${usd(-saved)} more ${base}`;
}
