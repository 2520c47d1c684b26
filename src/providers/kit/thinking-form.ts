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
