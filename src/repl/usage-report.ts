/**
 * `/usage`: tokens, cache hits and an estimated cost of the session so far, compaction included.
 * Prices are list prices in USD per million tokens, matched by model-name prefix; a model without
 * a known price shows tokens only. They are an estimate for orientation, not a bill.
 */
import { emptyUsage, addUsage, type Usage } from '../llm/core/usage.js';

interface Price {
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

/** Usage per model (a session may switch models). */
export type SpendByModel = Map<string, Usage>;

export function addSpend(spend: SpendByModel, model: string, usage: Usage): void {
  spend.set(model, addUsage(spend.get(model) ?? emptyUsage(), usage));
}

const n = (v: number) => v.toLocaleString('en-US');

/** The lines of the /usage block. */
export function usageLines(spend: SpendByModel, context: { tokens: number; budget: number }): string[] {
  let total = emptyUsage();
  let cost = 0;
  let priced = true;
  for (const [model, usage] of spend) {
    total = addUsage(total, usage);
    const price = priceOf(model);
    if (!price) {
      if (usage.input + usage.output + usage.cache_read + usage.cache_write > 0) priced = false;
      continue;
    }
    cost += (usage.input * price.input + usage.output * price.output + usage.cache_read * price.cacheRead + usage.cache_write * price.cacheWrite) / 1e6;
  }
  const prompt = total.input + total.cache_read + total.cache_write;
  const hitRate = prompt > 0 ? Math.round((total.cache_read / prompt) * 100) : 0;
  const pct = context.budget > 0 ? Math.round((context.tokens / context.budget) * 100) : 0;
  const lines = [
    `input        ${n(total.input)} tokens`,
    `output       ${n(total.output)} tokens`,
    `cache read   ${n(total.cache_read)} tokens (${hitRate}% of prompt tokens)`,
    `cache write  ${n(total.cache_write)} tokens`,
    priced ? `cost         ≈ $${cost.toFixed(cost < 1 ? 4 : 2)} (list prices, compaction included)` : 'cost         unknown for this model (no list price)',
    `context      ${pct}% of the ${n(context.budget)}-token input budget`,
  ];
  return lines;
}
