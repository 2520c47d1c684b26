import { applySections, type PromptState } from '../project/prompt-sections.js';
import type { SessionRecord } from '../transcript/records.js';

/**
 * The system prompt a resumed session goes on with, and what the model knows of its sections:
 * the last `system` a user message started, overlaid by the reminders sent since. A compaction or
 * a rewind drops reminders from the history, so what is known falls back to the prompt itself
 * (a later turn may repeat a reminder; it never misses one). A compaction record carries the
 * prompt too, so a read that starts at the last compaction keeps it. Undefined for a transcript
 * written before prompts were kept: the next turn writes a new prompt. Pure.
 */
export function promptStateFromRecords(records: readonly SessionRecord[]): PromptState | undefined {
  let state: PromptState | undefined;
  for (const r of records) {
    if (r.kind === 'user_message') {
      if (r.system) state = { snapshot: r.system, known: r.system };
      if (r.reminder && state) state = { snapshot: state.snapshot, known: applySections(state.known, r.reminder.sections) };
    } else if (r.kind === 'compaction_applied' && r.system) {
      state = { snapshot: r.system, known: r.system };
    } else if (state && (r.kind === 'compaction_applied' || (r.kind === 'undo' && r.conversation_to_seq !== undefined))) {
      state = { snapshot: state.snapshot, known: state.snapshot };
    }
  }
  return state;
}
