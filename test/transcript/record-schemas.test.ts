/**
 * The record schemas are built per kind on first use (src/transcript/records.ts); a reader of a
 * damaged transcript still gets the same one-line reasons the single discriminated union gave.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord, validateRecord } from '../../src/transcript/records.js';

const ts = '2026-12-01T09:00:00.000Z';
const usage = { input: 1, output: 2, cache_read: 0, cache_write: 0 };

describe('record validation', () => {
  it('accepts a valid record of every kind and drops unknown keys', () => {
    const valid = [
      { seq: 1, ts, kind: 'session_started', format: 2, session_id: 's', cwd: '/p', provider: 'anthropic', model: 'm', keen_version: '1' },
      { seq: 2, ts, kind: 'user_message', message: { role: 'user', content: 'hi' } },
      { seq: 3, ts, kind: 'assistant_turn', text: 'a', tools: [], usage, messages: [{ role: 'assistant', content: 'a', parts: [{ type: 'text', text: 'a' }] }] },
      { seq: 4, ts, kind: 'compaction_applied', mode: 'auto', status: '', messages: [{ role: 'user', content: 'summary', summary_level: 1 }] },
      { seq: 5, ts, kind: 'model_changed', provider: 'anthropic', model: 'm2' },
      { seq: 6, ts, kind: 'undo', turn_seqs: [2], files: ['a.ts'] },
      { seq: 7, ts, kind: 'prune_applied', pruned: [{ index: 0, tool_call_id: 't', artifact: 1, content: 'artifact#1' }] },
    ];
    for (const record of valid) expect(validateRecord({ ...record, extra: true })).toEqual({ ok: true, record });
  });

  it('names the first offending field, for the kind given and for values that are no record at all', () => {
    const reason = (v: unknown) => {
      const r = validateRecord(v);
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason(null)).toBe('record: Invalid input: expected object, received null');
    expect(reason([])).toBe('record: Invalid input: expected object, received array');
    expect(reason({ kind: 5 })).toMatch(/^kind: Invalid discriminator value\. Expected 'session_started' \| 'user_message'/);
    expect(reason({ kind: 'nope' })).toBe('unknown kind "nope"');
    expect(reason({ kind: 'constructor', seq: 1, ts })).toBe('unknown kind "constructor"');
    expect(reason({ seq: 1, ts, kind: 'user_message', message: { role: 'assistant', content: 'hi' } })).toBe('message.role: Invalid input: expected "user"');
    expect(reason({ seq: 0, ts, kind: 'model_changed', provider: 'p', model: 'm' })).toBe('seq: Too small: expected number to be >0');
    expect(reason({ seq: 2, ts: 'yesterday', kind: 'user_message', message: { role: 'user', content: 'hi' } })).toBe('ts: Invalid ISO datetime');
    expect(reason({ seq: 3, ts, kind: 'assistant_turn', text: '', tools: [], usage, messages: [{ role: 'assistant', content: 'a', parts: [{ type: 'bogus' }] }] })).toBe(
      "messages.0.parts.0.type: Invalid discriminator value. Expected 'text' | 'reasoning' | 'tool_call'",
    );
  });

  it('parseRecord is what the store checks before a write: a bad record is refused with its issue', () => {
    const bad = parseRecord({ seq: 1, ts, kind: 'user_message', message: { role: 'user' } });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.error.issues[0]?.path).toEqual(['message', 'content']);
  });
});
