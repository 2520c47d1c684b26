import type { ProviderId } from './provider-settings.js';

/** A model's capacity: facts, not policy. */
export interface ModelInfo {
  provider: ProviderId;
  contextWindow: number;
  maxOutputTokens: number;
  /**
   * Whether the model takes images in user messages (and tool results). Every model of the
   * catalog below does (Claude, GPT-5/4.1/4o/o4, Nova Pro, Gemini), so an entry says `false` only
   * for one that does not; a model the catalog does not know (by its name, or the `id` of its
   * `models.<name>` entry) takes none until that entry says `"images": true`. Resolved, always set.
   */
  images?: boolean;
}

/**
 * Built-in catalog of current models per provider. `models.<name>` in config adds or overrides
 * entries. Unknown models fall back to the provider default below.
 */
export const MODEL_CATALOG: Record<string, ModelInfo> = {
  'claude-sonnet-5-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-5-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-5-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4-6': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-6': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'gpt-5': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-mini': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-4.1': { provider: 'openai', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4o': { provider: 'openai', contextWindow: 128_000, maxOutputTokens: 16_384 },
  'o4-mini': { provider: 'openai', contextWindow: 200_000, maxOutputTokens: 100_000 },
  'gpt-5-codex': { provider: 'codex', contextWindow: 272_000, maxOutputTokens: 128_000 },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { provider: 'bedrock', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'us.anthropic.claude-sonnet-4-5-20250929-v1:0': { provider: 'bedrock', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'amazon.nova-pro-v1:0': { provider: 'bedrock', contextWindow: 300_000, maxOutputTokens: 10_000 },
  'gemini-2.5-pro': { provider: 'genkit', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  'gemini-2.5-flash': { provider: 'genkit', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
};

/**
 * Short names people type (`--model opus`, `"model": "haiku"`): each family's current model in
 * the catalog above. A `models.<name>` entry of the config with the same name wins.
 */
export const MODEL_SHORT_NAMES: Record<string, string> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
  gpt: 'gpt-5',
  'gpt-mini': 'gpt-5-mini',
  codex: 'gpt-5-codex',
  gemini: 'gemini-2.5-pro',
  'gemini-pro': 'gemini-2.5-pro',
  'gemini-flash': 'gemini-2.5-flash',
};

/** The model each provider uses when none is configured. */
export const DEFAULT_MODEL: Record<ProviderId, string> = {
  anthropic: 'claude-sonnet-5-5',
  openai: 'gpt-5',
  'openai-responses': 'gpt-5',
  codex: 'gpt-5-codex',
  bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  genkit: 'gemini-2.5-flash',
};

/** Capacity assumed for a model the catalog does not know (conservative). */
export const FALLBACK_CAPACITY = { contextWindow: 128_000, maxOutputTokens: 8_192 } as const;
