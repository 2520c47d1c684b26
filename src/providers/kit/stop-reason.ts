import type { TurnStopReason } from '../../core/provider.js';

/**
 * Every wire API's stop vocabulary in one table: Anthropic and Bedrock (`end_turn`, `tool_use`,
 * ...), Chat Completions (`stop`, `length`, `tool_calls`), Genkit (`stop`, `length`) and
 * Responses (`completed`, `max_output_tokens`).
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
};

/** The turn's stop reason; a reply that holds tool calls always stops for `tool_use`. */
export function mapStopReason(native: string | null | undefined, hasToolCalls: boolean): TurnStopReason {
  if (hasToolCalls) return 'tool_use';
  return (native ? STOP_REASONS[native] : undefined) ?? 'other';
}
