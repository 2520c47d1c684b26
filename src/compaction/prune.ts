/**
 * Pruning old tool outputs into artifact handles the model can `recall`. Pure: it plans, the caller persists and applies. Runs at compaction time only, when
 * the prompt cache is being invalidated anyway.
 */
import type { Message } from '../core/message.js';
import type { PrunedOutput } from '../transcript/records.js';

export { applyPrunePlan } from '../transcript/apply-prune.js';
import { describeOutput, handleText, isHandle } from './artifact-index.js';
import { PRUNE_MIN_FREED_TOKENS, PRUNE_PROTECT_TOKENS, PRUNE_PROTECTED_USER_TURNS } from './policy.js';

export interface PrunePlan {
  pruned: PrunedOutput[];
  /** Estimated tokens the handles free. */
  freed: number;
}

export interface PruneOptions {
  /** Estimated tokens of a text. */
  count: (text: string) => number;
  protectTokens?: number;
  minFreed?: number;
}

/**
 * Which tool outputs of the system-free `history` to replace by handles. Protected: everything
 * from the last {@link PRUNE_PROTECTED_USER_TURNS} user turns on, and the newest
 * {@link PRUNE_PROTECT_TOKENS} tokens of tool output; once a tool output pushes the newest
 * total past that, it and every older one are candidates. Only outputs with a stored artifact are
 * pruned (anything else could not be recalled). Returns undefined when the plan would free less
 * than {@link PRUNE_MIN_FREED_TOKENS}: a rewritten prefix is not worth a few thousand tokens.
 */
export function planPrune(history: readonly Message[], opts: PruneOptions): PrunePlan | undefined {
  const protect = opts.protectTokens ?? PRUNE_PROTECT_TOKENS;
  const minFreed = opts.minFreed ?? PRUNE_MIN_FREED_TOKENS;
  const boundary = protectedStart(history);
  const args = new Map<string, string>();
  for (const m of history) if (m.role === 'assistant') for (const c of m.tool_calls ?? []) args.set(c.id, c.args);

  let newest = 0;
  let past = false;
  const pruned: PrunedOutput[] = [];
  let freed = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (m.role !== 'tool' || isHandle(m.content)) continue;
    const tokens = opts.count(m.content);
    if (!past) {
      newest += tokens;
      if (newest <= protect) continue;
      past = true;
    }
    if (i >= boundary || !m.artifact_ref) continue;
    const content = handleText(m.artifact_ref, describeOutput(m.name, args.get(m.tool_call_id) ?? '', m.content));
    const gain = tokens - opts.count(content);
    if (gain <= 0) continue;
    pruned.unshift({ index: i, tool_call_id: m.tool_call_id, artifact: m.artifact_ref, content });
    freed += gain;
  }
  return freed >= minFreed && pruned.length > 0 ? { pruned, freed } : undefined;
}

/** Index of the first message of the protected user turns (a summary at the head is no user turn). */
function protectedStart(history: readonly Message[]): number {
  let seen = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (m.role === 'user' && !m.summary_level) {
      seen++;
      if (seen === PRUNE_PROTECTED_USER_TURNS) return i;
    }
  }
  return 0;
}
