import type { Usage } from '../../core/usage.js';

export interface RawUsage {
  /** The prompt size the service reported. */
  prompt?: number | null;
  output?: number | null;
  /** Output counted apart from `output` (Gemini's thinking tokens). */
  extraOutput?: number | null;
  cacheRead?: number | null;
  cacheWrite?: number | null;
  /**
   * True when `prompt` already counts the cached tokens (OpenAI, Responses, Gemini); false when
   * it excludes them (Anthropic, Bedrock).
   */
  promptIncludesCache: boolean;
}

/** Keen's usage convention: `input` excludes cache reads and writes; the full prompt is the sum. */
export function normaliseUsage(u: RawUsage): Usage {
  const cacheRead = u.cacheRead ?? 0;
  const cacheWrite = u.cacheWrite ?? 0;
  const prompt = u.prompt ?? 0;
  return {
    input: u.promptIncludesCache ? Math.max(0, prompt - cacheRead - cacheWrite) : prompt,
    output: (u.output ?? 0) + (u.extraOutput ?? 0),
    cache_read: cacheRead,
    cache_write: cacheWrite,
  };
}
