import type { Message } from '../core/message.js';
import type { PrunedOutput } from './records.js';

/**
 * A copy of `history` with the plan's outputs replaced by their artifact handles (pure). Shared by
 * the compaction module (live) and the projection (replaying `prune_applied` records on load), so
 * a resumed history holds exactly the handles the live one did. An entry whose index no longer
 * holds that tool call is skipped.
 */
export function applyPrunePlan(history: readonly Message[], pruned: readonly PrunedOutput[]): Message[] {
  const out = history.slice();
  for (const p of pruned) {
    const m = out[p.index];
    if (m?.role === 'tool' && m.tool_call_id === p.tool_call_id) {
      // A pruned output's images go with its text: the handle is all that stays.
      const { images: _images, ...rest } = m;
      out[p.index] = { ...rest, content: p.content, artifact_ref: p.artifact };
    }
  }
  return out;
}
