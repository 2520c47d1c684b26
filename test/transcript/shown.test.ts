/**
 * What a resumed REPL replays of a session opened from its last compaction (`shown`, read
 * backward from where the fast open started, within a budget): everything a full load has when
 * the budget covers it, the newest records before the compaction when it does not, damaged lines
 * passed over — and never a record twice or out of order.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { CWD, compaction, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

/** A session of `turns` prompts with a compaction after every tenth; returns home, id and path. */
async function longSession(turns: number): Promise<{ home: string; id: string; path: string }> {
  const home = tempHome();
  const store = await createStore(home, { fsync: false });
  for (let i = 1; i <= turns; i++) {
    await store.append(user(`prompt ${i}`));
    await store.append(turn(`answer ${i}`));
    if (i % 10 === 0) await store.append(compaction('auto', `summary up to ${i}`));
  }
  await store.close();
  return { home, id: store.id, path: store.path };
}

const WIDE = { maxRecords: 1_000_000, maxBytes: 1 << 30 };

describe('shown: the records a resumed REPL replays', () => {
  it('with a budget that covers the file: exactly the records of a full load, in order, complete', async () => {
    const s = await longSession(35);
    const opened = await SessionStore.open(s.home, CWD, s.id, { read: 'tail' });
    try {
      expect(opened.partial).toBe(true);
      const shown = await opened.shown(WIDE);
      const full = await loadTranscript(s.path);
      expect(shown.complete).toBe(true);
      expect(shown.damaged).toBe(0);
      expect(shown.records.map((r) => r.seq)).toEqual(full.records.map((r) => r.seq));
      expect(shown.records).toEqual(full.records);
    } finally {
      await opened.store.close();
    }
  });

  it('with a small budget: the newest records before the compaction, then the open records; not complete', async () => {
    const s = await longSession(35);
    const opened = await SessionStore.open(s.home, CWD, s.id, { read: 'tail' });
    try {
      const full = (await loadTranscript(s.path)).records;
      const start = full.findIndex((r) => r.seq === opened.records[0].seq);
      const byCount = await opened.shown({ maxRecords: 5, maxBytes: 1 << 30 });
      expect(byCount.complete).toBe(false);
      expect(byCount.records).toEqual(full.slice(start - 5));
      // A byte budget cuts at a whole line too: a few hundred bytes hold a few short records.
      const byBytes = await opened.shown({ maxRecords: 1000, maxBytes: 600 });
      expect(byBytes.complete).toBe(false);
      const extra = byBytes.records.length - opened.records.length;
      expect(extra).toBeGreaterThan(0);
      expect(byBytes.records).toEqual(full.slice(start - extra));
    } finally {
      await opened.store.close();
    }
  });

  it('passes over a damaged line before the compaction and counts it; a full open shows what it loaded', async () => {
    const s = await longSession(25);
    // Garble one record well before the last compaction (prompt 3's line).
    const lines = readFileSync(s.path, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"prompt 3"'));
    lines[at] = `${lines[at].slice(0, 25)}#garbled`;
    writeFileSync(s.path, lines.join('\n'));
    const opened = await SessionStore.open(s.home, CWD, s.id, { read: 'tail' });
    try {
      const shown = await opened.shown(WIDE);
      expect(shown.complete).toBe(true);
      expect(shown.damaged).toBe(1);
      const texts = shown.records.flatMap((r) => (r.kind === 'user_message' ? [r.message.content] : []));
      expect(texts).not.toContain('prompt 3');
      expect(texts).toContain('prompt 2');
      expect(texts.at(-1)).toBe('prompt 25');
      expect(new Set(shown.records.map((r) => r.seq)).size).toBe(shown.records.length);
    } finally {
      await opened.store.close();
    }

    const small = await longSession(3); // no compaction: the open reads everything
    const whole = await SessionStore.open(small.home, CWD, small.id, { read: 'tail' });
    try {
      expect(whole.partial).toBe(false);
      expect(await whole.shown({ maxRecords: 1, maxBytes: 1 })).toEqual({ records: whole.records, complete: true, damaged: 0 });
    } finally {
      await whole.store.close();
    }
  });

  it('a torn batch before the compaction is not shown (a full load drops it: that compaction never took effect)', async () => {
    const home = tempHome();
    const store = await createStore(home, { fsync: false });
    await store.append(user('prompt 1'));
    await store.appendBatch([turn('answer 1', undefined, true), compaction('manual', 'summary that never took effect')]);
    for (let i = 2; i <= 12; i++) {
      await store.append(user(`prompt ${i}`));
      await store.append(turn(`answer ${i}`));
    }
    await store.append(compaction('auto', 'the last summary'));
    await store.append(user('after'));
    await store.close();
    const lines = readFileSync(store.path, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"answer 1"'));
    lines[at] = `${lines[at].slice(0, 20)}#torn`;
    writeFileSync(store.path, lines.join('\n'));

    const opened = await SessionStore.open(home, CWD, store.id, { read: 'tail' });
    try {
      expect(opened.partial).toBe(true);
      const shown = await opened.shown(WIDE);
      const full = await loadTranscript(store.path);
      expect(shown.records.map((r) => r.seq)).toEqual(full.records.map((r) => r.seq));
      expect(JSON.stringify(shown.records)).not.toContain('summary that never took effect');
    } finally {
      await opened.store.close();
    }
  });

  it('a raised seq before the compaction is set aside as a full load does; the records after it stay', async () => {
    const s = await longSession(25);
    const lines = readFileSync(s.path, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"seq":4,'));
    lines[at] = lines[at].replace('{"seq":4,', '{"seq":400,');
    writeFileSync(s.path, lines.join('\n'));
    const opened = await SessionStore.open(s.home, CWD, s.id, { read: 'tail' });
    try {
      const shown = await opened.shown(WIDE);
      const full = await loadTranscript(s.path);
      expect(shown.records.map((r) => r.seq)).toEqual(full.records.map((r) => r.seq));
      expect(shown.damaged).toBe(1);
      // With a budget that starts right at the raised record, the same: it is set aside.
      const small = await opened.shown({ maxRecords: shown.records.length - opened.records.length - 2, maxBytes: 1 << 30 });
      expect(small.records.map((r) => r.seq)).toEqual(full.records.map((r) => r.seq).slice(-small.records.length));
    } finally {
      await opened.store.close();
    }
  });
});
