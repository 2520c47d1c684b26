import type { TurnStopReason } from '../../core/provider.js';

/**
 * Every wire API's stop vocabulary in one table: Anthropic and Bedrock (`end_turn`, `tool_use`,
 * ...), Chat Completions (`stop`, `length`, `tool_calls`), Genkit (`stop`, `length`) and
 * Responses (`completed`, `max_output_tokens`). Declined answers: Anthropic `refusal`, Bedrock
 * `guardrail_intervened` / `content_filtered`, OpenAI `content_filter` (Chat's finish reason,
 * Responses' incomplete reason), Genkit `blocked` (Gemini's SAFETY, PROHIBITED_CONTENT, ...).
 */
const STOP_REASONS: Record<string, TurnStopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  stop: 'end_turn',
  completed: 'end_turn',
  tool_use: 'tool_use',
  tool_calls: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  length: 'max_tokens',
  max_output_tokens: 'max_tokens',
  refusal: 'refusal',
  guardrail_intervened: 'refusal',
  content_filtered: 'refusal',
  content_filter: 'refusal',
  blocked: 'refusal',
};

/**
 * The turn's stop reason; a reply that holds tool calls stops for `tool_use`, unless the service
 * declined it (a refused turn's calls are never run).
 */
export function mapStopReason(native: string | null | undefined, hasToolCalls: boolean): TurnStopReason {
  const mapped = native ? STOP_REASONS[native] : undefined;
  if (mapped === 'refusal') return 'refusal';
  if (hasToolCalls) return 'tool_use';
  return mapped ?? 'other';
}
