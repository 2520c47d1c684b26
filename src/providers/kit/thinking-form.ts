/**
 * The thinking form Claude models expect. Claude 4.6 and later (and the Mythos / Fable lines) take
 * adaptive thinking — `thinking.type: "adaptive"`, depth set by `output_config.effort` — and
 * deprecate (4.6) or refuse (4.7 on) the fixed `budget_tokens` form; earlier models only know
 * `thinking.type: "enabled"` with a budget.
 */

/** Claude 4.6 or later by its id (`claude-opus-4-6`, `claude-sonnet-5-5`, `anthropic.claude-opus-4-7`, …). */
export function takesAdaptiveThinking(modelId: string): boolean {
  const id = modelId.toLowerCase();
  if (/claude-(mythos|fable)\b/.test(id)) return true;
  const m = /claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d)(?!\d))?/.exec(id);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 6);
}

/** Keen speaks in thinking-token budgets; adaptive thinking in effort levels. */
export function effortForBudget(budget: number): 'low' | 'medium' | 'high' {
  if (budget <= 4096) return 'low';
  if (budget <= 16384) return 'medium';
  return 'high';
}

export type ThinkingFields =
  | Record<string, never>
  | { thinking: { type: 'enabled'; budget_tokens: number } }
  | { thinking: { type: 'adaptive' }; output_config: { effort: 'low' | 'medium' | 'high' } };

/** The smallest budget the budget form accepts. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * The request fields for a thinking budget of `wanted` tokens (0: none) in a session whose output
 * limit is `maxOutputTokens` (the configured one, not a request's cap): the same for every request
 * of the session, so the prompt cache holds (Anthropic and Bedrock drop cached messages when the
 * thinking parameters change). The budget form needs budget_tokens ≥ 1024 and below max_tokens:
 * a limit that cannot hold the budget leaves thinking off for the whole session. The adaptive form
 * has no budget to fit. The loop keeps each request's max_tokens above the budget
 * ({@link thinkingMaxTokens}).
 */
export function thinkingFields(modelId: string, wanted: number, maxOutputTokens: number): ThinkingFields {
  if (!(wanted > 0)) return {};
  if (takesAdaptiveThinking(modelId)) return { thinking: { type: 'adaptive' }, output_config: { effort: effortForBudget(wanted) } };
  return wanted >= MIN_THINKING_BUDGET && wanted < maxOutputTokens ? { thinking: { type: 'enabled', budget_tokens: wanted } } : {};
}

/**
 * A request's max_tokens beside `fields`: never at or below the budget (the API refuses that).
 * The loop already leaves that room; this only keeps a hand-made limit valid.
 */
export function thinkingMaxTokens(fields: ThinkingFields, maxTokens: number): number {
  return 'thinking' in fields && fields.thinking.type === 'enabled' ? Math.max(maxTokens, fields.thinking.budget_tokens + 1) : maxTokens;
}

/**
 * Whether the model, left to its default, drops earlier turns' thinking blocks server-side (keeps
 * only the last assistant turn's; the context-editing page calls that default
 * `clear_thinking_20251015` with one turn kept): Claude Opus 4 and 4.1, Sonnet 4 and 4.5, Haiku
 * 4.5. Opus 4.5 and later, Sonnet 4.6 and later (and the 5 line, Mythos, Fable) keep every
 * turn's: `false`. Any other id (Claude 3.x, a model of another vendor, a name Keen does not
 * know): `undefined`, nothing known. By id, like {@link takesAdaptiveThinking}, so dated ids,
 * Bedrock ids and inference profiles (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`) match.
 */
export function dropsEarlierThinking(modelId: string): boolean | undefined {
  const id = modelId.toLowerCase();
  if (/claude-(mythos|fable)\b/.test(id)) return false;
  const m = /claude-(opus|sonnet|haiku)-(\d+)(?:-(\d)(?!\d))?/.exec(id);
  if (!m) return undefined;
  const version = `${m[1]}-${m[2]}.${m[3] ?? 0}`;
  if (['opus-4.0', 'opus-4.1', 'sonnet-4.0', 'sonnet-4.5', 'haiku-4.5'].includes(version)) return true;
  const v = Number(m[2]) + Number(m[3] ?? 0) / 10;
  return v >= 5 || (m[1] === 'opus' && v >= 4.5) || v >= 4.6 ? false : undefined;
}

/** The beta that enables context editing (Anthropic: the `anthropic-beta` header; Bedrock: `anthropic_beta` in the body). */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

/** The `context_management` field that keeps every earlier turn's thinking, so the prompt cache holds across turns. */
export type KeepAllThinking = { edits: [{ type: 'clear_thinking_20251015'; keep: 'all' }] };

/** A fresh {@link KeepAllThinking} (a request body never shares objects with another). */
export function keepAllThinking(): KeepAllThinking {
  return { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };
}

/**
 * Whether a request with these thinking fields asks the service to keep earlier thinking
 * ({@link keepAllThinking} with {@link CONTEXT_MANAGEMENT_BETA}): thinking is on and the model
 * drops it by default, which would invalidate the prompt cache at the first dropped block every
 * turn. Decided by the session's model and thinking fields alone, so every request of the session
 * (the compaction fork too) carries the same. A model not known to drop gets nothing: a
 * compatible server, or a model without context editing, may refuse the unknown field.
 */
export function keepsAllThinking(modelId: string, fields: ThinkingFields): boolean {
  return 'thinking' in fields && dropsEarlierThinking(modelId) === true;
}
