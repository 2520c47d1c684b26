/** What a conversation rewind leaves in view (src/undo/rewound.ts). */
import { describe, expect, it } from 'vitest';
import type { NewRecord, SessionRecord } from '../../src/transcript/records.js';
import { withoutRewound } from '../../src/undo/rewound.js';

const ts = '2026-12-01T00:00:00.000Z';
const at = (seq: number, r: NewRecord) => ({ seq, ts, ...r }) as SessionRecord;
const user = (seq: number, content: string) => at(seq, { kind: 'user_message', message: { role: 'user', content } });

describe('withoutRewound', () => {
  it('drops every record from the rewound message to the rewind, compactions included; a files-only undo drops nothing', () => {
    const records = [
      user(2, 'q1'),
      user(3, 'q2'),
      at(4, { kind: 'compaction_applied', mode: 'manual', status: 'Context compacted.', messages: [] }),
      user(5, 'q3'),
      at(6, { kind: 'undo', turn_seqs: [], files: [], conversation_to_seq: 3 }),
      user(7, 'q4'),
      at(8, { kind: 'undo', turn_seqs: [7], files: [] }),
    ];
    expect(withoutRewound(records).map((r) => r.seq)).toEqual([2, 6, 7, 8]);
  });
});
