import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { projectDir, sessionsRoot } from '../../src/transcript/paths.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import type { NewRecord } from '../../src/transcript/records.js';
import { SessionStore } from '../../src/transcript/store.js';
import { FailingIo } from './failing-io.js';
import { CWD, compaction, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

let home: string;
beforeEach(() => (home = tempHome()));

async function lines(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('SessionStore seqs', () => {
  it('starts a session with session_started as seq 1', async () => {
    const store = await createStore(home);
    await store.close();
    const [first, ...rest] = await lines(store.path);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      seq: 1,
      kind: 'session_started',
      format: 2,
      session_id: store.id,
      cwd: CWD,
      provider: 'anthropic',
      model: 'claude-test',
      keen_version: '0.1.0',
    });
    expect(Object.keys(first).slice(0, 3)).toEqual(['seq', 'kind', 'ts']);
    expect(new Date(String(first.ts)).getTime()).not.toBeNaN();
  });

  it('gives appends and batches consecutive seqs, marking only multi-record batches', async () => {
    const store = await createStore(home);
    expect((await store.append(user('one'))).seq).toBe(2);
    const batch = await store.appendBatch([turn('checkpoint', undefined, true), compaction('auto', 'summary')]);
    expect(batch.map((r) => r.seq)).toEqual([3, 4]);
    expect((await store.appendBatch([user('alone')]))[0].seq).toBe(5);
    expect(await store.appendBatch([])).toEqual([]);
    expect((await store.append(turn('after'))).seq).toBe(6);
    expect(store.lastSeq).toBe(6);
    await store.close();

    const written = await lines(store.path);
    expect(written.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(written.map((r) => r.batch)).toEqual([undefined, undefined, { first_seq: 3, count: 2 }, { first_seq: 3, count: 2 }, undefined, undefined]);
  });

  it('keeps call order when appends are not awaited one by one', async () => {
    const store = await createStore(home);
    const results = await Promise.all([store.append(user('a')), store.appendBatch([user('b'), user('c')]), store.append(user('d'))]);
    await store.close();
    expect(results.flat().map((r) => r.seq)).toEqual([2, 3, 4, 5]);
    const { records } = await loadTranscript(store.path);
    expect(records.map((r) => (r.kind === 'user_message' ? r.message.content : r.kind))).toEqual(['session_started', 'a', 'b', 'c', 'd']);
  });

  it('continues after the highest seq when a session is reopened', async () => {
    const store = await createStore(home);
    await store.append(user('first run'));
    await store.close();
    const { store: again, records, warning } = await SessionStore.open(home, CWD, store.id);
    expect(warning).toBeUndefined();
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect((await again.appendBatch([user('x'), user('y')])).map((r) => r.seq)).toEqual([3, 4]);
    await again.close();
    expect((await loadTranscript(store.path)).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });

  it('refuses an invalid record with one line and writes nothing', async () => {
    const store = await createStore(home);
    const bad = { kind: 'assistant_turn', text: 'x', tools: [], usage: { input: 1 }, messages: [] } as unknown as NewRecord;
    const err = await store.appendBatch([user('ok'), bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeenError);
    expect((err as Error).message).toMatch(/^session \S+: refusing to write an invalid assistant_turn record \(usage\.output/);
    expect((err as Error).message).not.toContain('\n');
    expect((await store.append(user('next'))).seq).toBe(2);
    await store.close();
    expect((await lines(store.path)).map((r) => r.seq)).toEqual([1, 2]);
  });

  it('rejects appends after close', async () => {
    const store = await createStore(home);
    await store.close();
    await expect(store.append(user('late'))).rejects.toThrow(`session ${store.id} is closed; nothing was written`);
  });

  it('rejects a malformed id before touching the disk', async () => {
    await expect(SessionStore.open(home, CWD, '../../etc')).rejects.toThrow(/is not a session id.*keen sessions/);
    await expect(createStore(home, { id: 'a/b' })).rejects.toBeInstanceOf(KeenError);
    await expect(stat(home)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('says how to list sessions when the id is unknown', async () => {
    await expect(SessionStore.open(home, CWD, '20250101-000000-abcdef')).rejects.toThrow(`no session 20250101-000000-abcdef in ${CWD}; run \`keen sessions\` to list sessions`);
  });
});

describe('file modes', () => {
  it('creates directories 0700 and files 0600 even with a permissive umask', async () => {
    const old = process.umask(0);
    try {
      const store = await createStore(home);
      await store.append(user('hi'));
      const lockMode = (await stat(join(store.dir, 'writer.lock'))).mode & 0o777;
      await store.close();
      for (const dir of [home, sessionsRoot(home), projectDir(home, CWD), store.dir]) {
        expect({ dir, mode: ((await stat(dir)).mode & 0o777).toString(8) }).toEqual({ dir, mode: '700' });
      }
      expect(((await stat(store.path)).mode & 0o777).toString(8)).toBe('600');
      expect(lockMode.toString(8)).toBe('600');
    } finally {
      process.umask(old);
    }
  });
});

describe('secrets', () => {
  const KEY = 'kf-test-3c9a71e0b2d4-do-not-leak';
  const QUOTED = 'tok"en\\with-quote';
  const CONFIG_KEY = 'cfg-key-77aa88bb99cc';

  afterEach(() => {
    delete process.env.KEEN_FAKE_API_KEY;
    delete process.env.KEEN_FAKE_TOKEN;
  });

  it('never writes an environment or config secret into any session file', async () => {
    process.env.KEEN_FAKE_API_KEY = KEY;
    process.env.KEEN_FAKE_TOKEN = QUOTED;
    const store = await createStore(home, { secrets: [CONFIG_KEY] });
    await store.append(user(`my key is ${KEY} and ${CONFIG_KEY}`));
    await store.append({
      kind: 'assistant_turn',
      text: `I ran env and saw ${KEY}`,
      tools: [{ id: 'c1', name: 'bash', summary: `echo ${KEY}`, is_error: false, offset: 3 }],
      usage: { input: 1, output: 1, cache_read: 0, cache_write: 0 },
      messages: [
        { role: 'assistant', content: 'checking', tool_calls: [{ id: 'c1', name: 'bash', args: JSON.stringify({ cmd: `echo ${KEY} ${QUOTED}` }) }] },
        { role: 'tool', tool_call_id: 'c1', name: 'bash', content: `${KEY}\n${QUOTED}` },
      ],
    });
    await store.appendBatch([turn(`cp ${KEY}`, undefined, true), compaction('auto', `summary mentions ${KEY}`)]);
    await store.close();

    let files = 0;
    for (const entry of await readdir(home, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      files++;
      const bytes = await readFile(join(entry.parentPath, entry.name), 'utf8');
      expect(bytes).not.toContain(KEY);
      expect(bytes).not.toContain(CONFIG_KEY);
      expect(bytes).not.toContain(JSON.stringify(QUOTED).slice(1, -1));
    }
    expect(files).toBeGreaterThan(0);

    const { records, warning } = await loadTranscript(store.path);
    expect(warning).toBeUndefined();
    expect(records[1]).toMatchObject({ message: { content: 'my key is [REDACTED] and [REDACTED]' } });
    const toolTurn = records[2];
    expect(toolTurn.kind === 'assistant_turn' && toolTurn.messages[1].content).toBe('[REDACTED]\n[REDACTED]');
    expect(toolTurn.kind === 'assistant_turn' && toolTurn.tools[0].summary).toBe('echo [REDACTED]');
  });
});

describe('opening sessions', () => {
  it("names the directory when the id is another directory's session", async () => {
    const other = await createStore(home, { cwd: '/somewhere/else' });
    await other.close();
    await expect(SessionStore.open(home, CWD, other.id)).rejects.toThrow(`session ${other.id} belongs to /somewhere/else; run keen there`);
  });

  it('refuses to append to a transcript written by a newer Keen', async () => {
    const store = await createStore(home);
    await store.close();
    const text = await readFile(store.path, 'utf8');
    await writeFile(store.path, text.replace('"format":2', '"format":3'));
    await expect(SessionStore.open(home, CWD, store.id)).rejects.toThrow(`session ${store.id} was written by a newer Keen (transcript format 3); upgrade Keen to resume it`);
    expect(await readFile(store.path, 'utf8')).toBe(text.replace('"format":2', '"format":3'));
  });
});

describe('a failed start', () => {
  it('leaves no empty session behind', async () => {
    const err = await createStore(home, { provider: undefined as unknown as string }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/refusing to write an invalid session_started record \(provider/);
    expect(await readdir(projectDir(home, CWD))).toEqual([]);
  });

  it('a disk that fails the first record (its write or its fdatasync, run beside the folder syncs) leaves no session and no lock', async () => {
    for (const op of ['write', 'datasync'] as const) {
      const io = new FailingIo();
      io.arm(1, 'ENOSPC', op);
      const err = await createStore(home, { io }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeenError);
      expect((err as Error).message).toMatch(/^session \S+: could not write the transcript \(ENOSPC: no space left on device/);
      expect((err as Error).message).not.toContain('\n');
      expect(io.failures).toBe(1);
      expect(await readdir(projectDir(home, CWD))).toEqual([]);
    }
  });
});
