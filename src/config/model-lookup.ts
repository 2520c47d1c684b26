/**
 * Which provider a model name belongs to when neither the catalog nor the config knows it, and
 * which known names are close to a mistyped one. Pure.
 */
import type { ProviderId } from './provider-settings.js';

/** Name prefixes that identify a provider's models (checked in order). */
const PREFIXES: [RegExp, ProviderId][] = [
  [/^claude-/, 'anthropic'],
  [/^(gpt-|chatgpt-|o\d)/, 'openai'],
  [/^gemini-/, 'genkit'],
  [/^((us|eu|apac|global)\.)?(anthropic|amazon|meta|mistral|cohere|ai21|deepseek|qwen|openai)\./, 'bedrock'],
];

/** The provider a model name's prefix names (`gpt-9` → openai), or undefined. */
export function providerByPrefix(name: string): ProviderId | undefined {
  return PREFIXES.find(([re]) => re.test(name))?.[1];
}

/** Up to `max` of `known` closest to `name` (edit distance), for a "did you mean" list. */
export function closeNames(name: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(3, Math.ceil(name.length / 3));
  return known
    .map((k) => ({ k, d: distance(name.toLowerCase(), k.toLowerCase()) }))
    .filter((e) => e.d <= limit || e.k.startsWith(name) || name.startsWith(e.k))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, max)
    .map((e) => e.k);
}

/** Levenshtein distance, O(|a|·|b|) with one row. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}
