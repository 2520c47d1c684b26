/**
 * The thinking form Claude models accept, as the Anthropic API and Bedrock enforce it: the models
 * from Claude Opus 4.7 on (the 5 line, Mythos, Fable) refuse `thinking.type: "enabled"` with a
 * budget; the models before 4.6 do not know `"adaptive"`.
 */
export function thinkingFormError(model: unknown, thinking: any): string | undefined {
  if (typeof model !== 'string' || !thinking || typeof thinking !== 'object') return undefined;
  const version = claudeVersion(model);
  if (version === undefined) return undefined;
  if (thinking.type === 'enabled' && version >= 4.7) {
    return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
  }
  if (thinking.type === 'adaptive' && version < 4.6) return 'adaptive thinking is not supported on this model';
  return undefined;
}

/**
 * The budget form's limits, as both services enforce them: budget_tokens of at least 1,024 and
 * below max_tokens (Bedrock: inferenceConfig.maxTokens).
 */
export function thinkingBudgetError(thinking: any, maxTokens: unknown): string | undefined {
  if (!thinking || typeof thinking !== 'object' || thinking.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (typeof maxTokens === 'number' && maxTokens <= budget)
    return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  return undefined;
}

/** 4.5 for `claude-sonnet-4-5-20250929`, 5 for `anthropic.claude-opus-5`, 9 for Mythos / Fable. */
function claudeVersion(model: string): number | undefined {
  if (/claude-(mythos|fable)\b/i.test(model)) return 9;
  const m = /claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d)(?!\d))?/i.exec(model);
  return m ? Number(m[1]) + Number(m[2] ?? 0) / 10 : undefined;
}

/** The context-editing beta both services want before they read `context_management`. */
const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

const EDIT_TYPES = ['clear_tool_uses_20250919', 'clear_thinking_20251015'];

/**
 * `context_management` as both services check it: refused without the context-management beta
 * (Anthropic: the `anthropic-beta` header; Bedrock: `anthropic_beta` in the model fields) as an
 * extra input, and with it only in the documented shape — `edits`, a list of known edit types,
 * `clear_thinking_20251015` keeping `"all"` or `{type: "thinking_turns", value ≥ 1}` and only
 * with thinking on.
 */
export function contextManagementError(management: any, betas: readonly string[], thinking: any): string | undefined {
  if (management === undefined) return undefined;
  if (!betas.includes(CONTEXT_MANAGEMENT_BETA)) return 'context_management: Extra inputs are not permitted';
  const edits = management?.edits;
  if (!Array.isArray(edits)) return 'context_management.edits: Field required';
  for (const [i, edit] of edits.entries()) {
    if (!EDIT_TYPES.includes(edit?.type)) {
      return `context_management.edits.${i}: Input tag '${edit?.type}' found using 'type' does not match any of the expected tags: ${EDIT_TYPES.map((t) => `'${t}'`).join(', ')}`;
    }
    if (edit.type !== 'clear_thinking_20251015') continue;
    const keep = edit.keep;
    const turns = keep?.type === 'thinking_turns' && Number.isInteger(keep.value) && keep.value >= 1;
    if (keep !== undefined && keep !== 'all' && keep?.type !== 'all' && !turns) return `context_management.edits.${i}.keep: Input should be 'all' or a thinking_turns object`;
    if (thinking?.type !== 'enabled' && thinking?.type !== 'adaptive') return 'clear_thinking_20251015 strategy requires thinking to be enabled';
  }
  return undefined;
}

/** The betas of an Anthropic request's `anthropic-beta` header (comma-separated, possibly repeated). */
export function headerBetas(header: string | string[] | undefined): string[] {
  return [header ?? []].flat().flatMap((h) => h.split(',').map((b) => b.trim()));
}
