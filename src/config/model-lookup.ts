/**
 * Which provider a model name belongs to when neither the catalog nor the config knows it, and
 * which known names are close to a mistyped one. Pure.
 */
import { MODEL_CATALOG, MODEL_SHORT_NAMES } from './models.js';
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

/**
 * The model a name means: itself when the config (`configured`, the `models` keys) or the catalog
 * knows it, else the catalog model its short name stands for (`opus` → claude-opus-5-5), else
 * itself.
 */
export function canonicalModelName(name: string, configured: Readonly<Record<string, unknown>> = {}): string {
  if (Object.hasOwn(configured, name) || Object.hasOwn(MODEL_CATALOG, name)) return name;
  return Object.hasOwn(MODEL_SHORT_NAMES, name) ? MODEL_SHORT_NAMES[name] : name;
}

/** Which provider family serves a provider's models: the OpenAI ones share theirs. */
const FAMILY: Record<ProviderId, string> = { anthropic: 'anthropic', openai: 'openai', 'openai-responses': 'openai', codex: 'openai', bedrock: 'bedrock', genkit: 'genkit' };

/**
 * A warning when `provider` (given explicitly) is not the one `model` belongs to — by its
 * `models.<name>` entry, the catalog or its name's prefix — e.g. `--provider openai --model
 * claude-sonnet-5`. The model is still sent there as asked (a gateway may serve it); a config
 * entry that names the provider says it is meant and silences this.
 */
export function providerMismatch(model: string, provider: ProviderId, own: ProviderId | undefined): string | undefined {
  if (!own || FAMILY[own] === FAMILY[provider]) return undefined;
  return `model "${model}" belongs to ${own}, but the provider is ${provider}; sending it to ${provider} as asked (drop --provider, or give it a config "models" entry with "provider": "${provider}")`;
}

/** Up to `max` of `known` closest to `name` (edit distance), for a "did you mean" list. */
export function closeNames(name: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(3, Math.ceil(name.length / 3));
  return known
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter((e) => e.d <= limit || e.k.startsWith(name) || name.startsWith(e.k))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, max)
    .map((e) => e.k);
}

/**
 * Edit distance counting a swap of two neighbours as one edit (`mpc` → `mcp`, `modles` →
 * `models`): optimal string alignment, O(|a|·|b|).
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
