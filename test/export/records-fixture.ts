/**
 * A small hand-written transcript for the export tests: a prompt, an edit with a diff, a read,
 * an automatic compaction with its summary, more requests, and hostile text in every field a
 * transcript lets a model or a file fill.
 */
import type { SessionRecord } from '../../src/transcript/records.js';

export const HOSTILE = `<script>document.documentElement.setAttribute('data-pwned','1')</script><img src=x onerror="document.documentElement.setAttribute('data-pwned','2')">`;

const ts = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;
const usage = (input: number, cacheRead = 0) => ({ input, output: 20, cache_read: cacheRead, cache_write: 0 });
const none = { input: 0, output: 0, cache_read: 0, cache_write: 0 };

export function sampleRecords(): SessionRecord[] {
  return [
    { seq: 1, ts: ts(1), kind: 'session_started', format: 2, session_id: 's1', cwd: '/w', provider: 'anthropic', model: 'tiny', keen_version: '0' },
    { seq: 2, ts: ts(2), kind: 'user_message', message: { role: 'user', content: `Fix it ${HOSTILE}` } },
    {
      seq: 3,
      ts: ts(3),
      kind: 'assistant_turn',
      text: 'Editing. ',
      tools: [],
      usage: usage(1000, 500),
      messages: [
        {
          role: 'assistant',
          content: 'Editing. ',
          tool_calls: [{ id: 'e1', name: 'edit_file', args: JSON.stringify({ path: 'a.ts', old_string: 'const a = 1;\n', new_string: `const a = 2; // ${HOSTILE}\n` }) }],
        },
      ],
    },
    {
      seq: 4,
      ts: ts(4),
      kind: 'assistant_turn',
      text: '',
      tools: [{ id: 'e1', name: 'edit_file', summary: 'edit a.ts', is_error: false, offset: 0 }],
      usage: none,
      messages: [{ role: 'tool', tool_call_id: 'e1', name: 'edit_file', content: 'Edited a.ts' }],
    },
    {
      seq: 5,
      ts: ts(5),
      kind: 'assistant_turn',
      text: `Reading ${HOSTILE}`,
      tools: [],
      usage: usage(4000),
      messages: [{ role: 'assistant', content: 'Reading', tool_calls: [{ id: 'r1', name: 'read_file', args: JSON.stringify({ path: 'b.txt' }) }] }],
      checkpoint: true,
      batch: { first_seq: 5, count: 2 },
    },
    {
      seq: 6,
      ts: ts(6),
      kind: 'compaction_applied',
      mode: 'auto',
      status: '',
      messages: [
        { role: 'user', content: `<compacted_context>\n## Goal\nFix it ${HOSTILE}\n</compacted_context>`, summary_level: 1 },
        { role: 'user', content: 'Fix it' },
      ],
      batch: { first_seq: 5, count: 2 },
    },
    {
      seq: 7,
      ts: ts(7),
      kind: 'assistant_turn',
      text: '',
      tools: [{ id: 'r1', name: 'read_file', summary: `read ${HOSTILE}`, is_error: true, offset: 0 }],
      usage: none,
      messages: [{ role: 'tool', tool_call_id: 'r1', name: 'read_file', content: `no such file ${HOSTILE}`, is_error: true }],
    },
    { seq: 8, ts: ts(8), kind: 'assistant_turn', text: 'Done.', tools: [], usage: usage(1500), messages: [{ role: 'assistant', content: 'Done.' }] },
  ];
}
