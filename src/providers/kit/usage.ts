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

/** A Chat Completions `usage` object, as OpenAI and compatible servers send it. */
export interface ChatUsageCounts {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * The output tokens a Chat Completions server bills. OpenAI counts reasoning inside
 * `completion_tokens`; xAI leaves it out (in `completion_tokens_details.reasoning_tokens`) but
 * keeps it in `total_tokens`. So: whatever `total_tokens` holds beyond prompt and completion is
 * output too; without a total, `reasoningOutside` (the server is api.x.ai) adds the reasoning.
 */
export function chatOutputTokens(u: ChatUsageCounts, reasoningOutside: boolean): number {
  const prompt = u.prompt_tokens ?? 0;
  const completion = u.completion_tokens ?? 0;
  const beyond = (u.total_tokens ?? 0) - prompt - completion;
  if (u.total_tokens != null && beyond > 0) return completion + beyond;
  if (u.total_tokens == null && reasoningOutside) return completion + (u.completion_tokens_details?.reasoning_tokens ?? 0);
  return completion;
}
