/**
 * One damaged record must not hide the rest: a record whose seq was raised (4 → 40) used to make
 * every later valid record count as "not after 40" and, on open, be moved to `.corrupt`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { CWD, createStore, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

let home: string;
beforeEach(() => (home = tempHome()));

async function sessionWith(...prompts: string[]): Promise<SessionStore> {
  const store = await createStore(home);
  for (const p of prompts) await store.append(user(p));
  await store.close();
  return store;
}

const promptsOf = (records: Awaited<ReturnType<typeof loadTranscript>>['records']) => records.flatMap((r) => (r.kind === 'user_message' ? [r.message.content] : []));

describe('a record whose seq was damaged', () => {
  it('seq 4 raised to 40: every record loads (the bad one read as 4), one warning, nothing moved aside, appends continue', async () => {
    const store = await sessionWith('one', 'two', 'three', 'four', 'five', 'six');
    const original = await readFile(store.path, 'utf8');
    const damaged = original.replace('{"seq":4,', '{"seq":40,');
    await writeFile(store.path, damaged);

    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(promptsOf(records)).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
    expect(warning).toBe(`${store.path}: repaired damaged line 4 (seq 40 out of order between 3 and 5; read as seq 4); the rest of the session loaded`);
    expect((await again.append(user('seven'))).seq).toBe(8);
    await again.close();

    const text = await readFile(store.path, 'utf8');
    expect(text.startsWith(damaged)).toBe(true); // nothing truncated, the damaged line kept in place
    const after = await loadTranscript(store.path);
    expect(promptsOf(after.records)).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven']);
    expect(buildConversation(after.records).map((m) => m.content)).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven']);
  });

  it('a raised seq on the last record stays (nothing contradicts it) and appends continue after it', async () => {
    const store = await sessionWith('one', 'two', 'three', 'four', 'five');
    const text = await readFile(store.path, 'utf8');
    await writeFile(store.path, text.replace('{"seq":6,', '{"seq":60,'));
    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 60]);
    expect(warning).toBeUndefined();
    expect((await again.append(user('six'))).seq).toBe(61);
    await again.close();
  });

  it('a raised seq followed by records between: the bad record is skipped, none after it is lost', async () => {
    const store = await sessionWith('one', 'two', 'three', 'four', 'five', 'six');
    const lines = (await readFile(store.path, 'utf8')).split('\n');
    lines.splice(3, 1); // drop seq 4 (so the gap is 3 → 5)
    lines[3] = lines[3].replace('{"seq":5,', '{"seq":50,'); // 1 2 3 [50] 6 7
    await writeFile(store.path, `${lines.filter(Boolean).join('\n')}\n`);
    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 6, 7]);
    expect(warning).toContain('skipped damaged line 4 (seq 50 out of order after 3; left in place)');
    await again.close();
    expect(await readFile(store.path, 'utf8')).toContain('{"seq":50,');
  });
});
