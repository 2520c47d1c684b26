import type { SessionRecord } from '../transcript/records.js';

/**
 * The records a conversation rewind left in view: each `undo` with `conversation_to_seq` S takes
 * away every record from the user message S up to itself (the rewound turns, a compaction among
 * them too), as the model history goes back to before S. What the REPL replays and `/rewind`
 * offers. Pure; records keep their order.
 */
export function withoutRewound(records: readonly SessionRecord[]): SessionRecord[] {
  const cuts: [number, number][] = [];
  for (const r of records) if (r.kind === 'undo' && r.conversation_to_seq !== undefined) cuts.push([r.conversation_to_seq, r.seq]);
  if (cuts.length === 0) return [...records];
  return records.filter((r) => !cuts.some(([from, to]) => r.seq >= from && r.seq < to));
}
