import { appendFile, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { CWD, compaction, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

let home: string;
beforeEach(() => (home = tempHome()));

/** A closed session with session_started + the given user prompts; returns its store. */
async function sessionWith(...prompts: string[]): Promise<SessionStore> {
  const store = await createStore(home);
  for (const p of prompts) await store.append(user(p));
  await store.close();
  return store;
}

function prompts(records: Awaited<ReturnType<typeof loadTranscript>>['records']): string[] {
  return records.flatMap((r) => (r.kind === 'user_message' ? [r.message.content] : []));
}

/** Every line of the file parses as JSON (blank lines aside). */
async function expectValidJsonl(path: string): Promise<void> {
  const text = await readFile(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n').filter((l) => l.trim())) expect(() => JSON.parse(line)).not.toThrow();
}

describe('torn last line', () => {
  it('loads the rest, warns once, moves the torn bytes aside and keeps appending', async () => {
    const store = await sessionWith('one', 'two');
    const torn = '{"seq":4,"kind":"user_message","ts":"2025-01-01T00:00:00.000Z","message":{"role":"user","cont';
    await appendFile(store.path, torn);

    const readOnly = await loadTranscript(store.path);
    expect(prompts(readOnly.records)).toEqual(['one', 'two']);
    expect(readOnly.warning).toBe(`${store.path}: skipped damaged line 4 (torn line (crash mid-write)); the rest of the session loaded`);
    expect(await readFile(store.path, 'utf8')).toContain(torn); // reading never changes the file

    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(prompts(records)).toEqual(['one', 'two']);
    expect(warning).toMatch(/skipped damaged line 4 .*; the damaged bytes were moved to .*transcript_events\.jsonl\.corrupt$/);
    expect(warning).not.toContain('\n');
    expect(await readFile(join(store.dir, 'transcript_events.jsonl.corrupt'), 'utf8')).toBe(`${torn}\n`);

    expect((await again.append(user('three'))).seq).toBe(4);
    await again.close();
    await expectValidJsonl(store.path);
    const after = await loadTranscript(store.path);
    expect(after.warning).toBeUndefined();
    expect(after.records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(prompts(after.records)).toEqual(['one', 'two', 'three']);
  });

  it('keeps a complete last record whose newline is missing and appends on a fresh line', async () => {
    const store = await sessionWith('one');
    const text = await readFile(store.path, 'utf8');
    await writeFile(store.path, text.slice(0, -1));

    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(warning).toBeUndefined();
    expect(prompts(records)).toEqual(['one']);
    await again.append(user('two'));
    await again.close();
    await expectValidJsonl(store.path);
    expect(prompts((await loadTranscript(store.path)).records)).toEqual(['one', 'two']);
  });
});

describe('corrupt middle line', () => {
  it('loads every other record, keeps the bad bytes in place and continues after the highest seq', async () => {
    const store = await sessionWith('one', 'two', 'three');
    const lines = (await readFile(store.path, 'utf8')).split('\n');
    lines[2] = '{"seq":3,"kind":"user_message", garbage \u0000 here';
    await writeFile(store.path, lines.join('\n'));

    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(prompts(records)).toEqual(['one', 'three']);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 4]);
    expect(warning).toBe(`${store.path}: skipped damaged line 3 (not valid JSON); the rest of the session loaded`);
    expect((await again.append(user('four'))).seq).toBe(5);
    await again.close();

    const text = await readFile(store.path, 'utf8');
    expect(text).toContain('garbage \u0000 here'); // user data is never deleted
    const after = await loadTranscript(store.path);
    expect(prompts(after.records)).toEqual(['one', 'three', 'four']);
    expect(after.problems).toHaveLength(1);
  });

  it('skips a line that is JSON but not a valid record, and a repeated seq', async () => {
    const store = await sessionWith('one', 'two');
    const lines = (await readFile(store.path, 'utf8')).split('\n').filter(Boolean);
    const dup = lines[1];
    await writeFile(store.path, [lines[0], '{"seq":2,"kind":"mystery"}', lines[1], dup, lines[2], ''].join('\n'));

    const loaded = await loadTranscript(store.path);
    expect(prompts(loaded.records)).toEqual(['one', 'two']);
    expect(loaded.problems.map((p) => [p.line, p.reason])).toEqual([
      [2, 'invalid record (unknown kind "mystery")'],
      [4, 'seq 2 is not after 2'],
    ]);
    expect(loaded.warning).toMatch(/skipped damaged line 2 \(invalid record .*\) and 1 more; the rest of the session loaded$/);
  });
});

describe('incomplete batch', () => {
  it('drops a batch cut short at the tail, moves it aside, and reuses its seqs', async () => {
    const store = await createStore(home);
    await store.append(user('before'));
    await store.appendBatch([turn('checkpoint', undefined, true), compaction('auto', 'summary'), turn('third of batch')]);
    await store.close();
    // Simulate a crash that left only the first two records of the three-record batch.
    const text = await readFile(store.path, 'utf8');
    const keep = text.split('\n').slice(0, 4).join('\n').length + 1;
    await truncate(store.path, keep);

    const loaded = await loadTranscript(store.path);
    expect(loaded.records.map((r) => r.seq)).toEqual([1, 2]);
    expect(loaded.problems.map((p) => p.reason)).toEqual(['incomplete batch (2 of 3 records from seq 3)', 'incomplete batch (2 of 3 records from seq 3)']);
    expect(buildConversation(loaded.records)).toEqual([{ role: 'user', content: 'before' }]);

    const { store: again, warning } = await SessionStore.open(home, CWD, store.id);
    expect(warning).toMatch(/incomplete batch .*moved to/);
    expect((await again.appendBatch([turn('retry cp', undefined, true), compaction('auto', 'retry summary')])).map((r) => r.seq)).toEqual([3, 4]);
    await again.close();

    const after = await loadTranscript(store.path);
    expect(after.warning).toBeUndefined();
    expect(after.records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(buildConversation(after.records)).toEqual([{ role: 'user', content: 'retry summary' }]);
    const corrupt = await readFile(join(store.dir, 'transcript_events.jsonl.corrupt'), 'utf8');
    expect(
      corrupt
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).seq),
    ).toEqual([3, 4]);
  });

  it('drops a batch whose middle record is damaged, even when later records follow', async () => {
    const store = await createStore(home);
    await store.appendBatch([user('a'), user('b'), user('c')]);
    await store.append(user('d'));
    await store.close();
    const lines = (await readFile(store.path, 'utf8')).split('\n');
    lines[2] = lines[2].slice(0, 20); // record seq 3, the middle of the batch
    await writeFile(store.path, lines.join('\n'));

    const loaded = await loadTranscript(store.path);
    expect(prompts(loaded.records)).toEqual(['d']);
    expect(loaded.problems.map((p) => p.line)).toEqual([3, 2, 4]);
  });

  it('leaves a file of only damaged bytes empty but keeps every byte in the side file', async () => {
    const store = await sessionWith('one');
    const original = await readFile(store.path, 'utf8');
    await writeFile(store.path, original.replaceAll('"seq"', '"sq"'));

    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(records).toEqual([]);
    expect(warning).toMatch(/and 1 more/);
    await again.close();
    expect((await stat(store.path)).size).toBe(0);
    expect(await readFile(join(store.dir, 'transcript_events.jsonl.corrupt'), 'utf8')).toBe(original.replaceAll('"seq"', '"sq"'));
  });
});

describe('blank lines', () => {
  it('are harmless anywhere and never create a side file', async () => {
    const store = await sessionWith('one');
    await appendFile(store.path, '\n  \n');
    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(warning).toBeUndefined();
    expect(prompts(records)).toEqual(['one']);
    await again.append(user('two'));
    await again.close();
    await expect(stat(join(store.dir, 'transcript_events.jsonl.corrupt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(prompts((await loadTranscript(store.path)).records)).toEqual(['one', 'two']);
  });
});
