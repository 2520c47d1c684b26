import { appendFile, mkdir, open, readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { formatSessionList, relativeTime } from '../../src/transcript/list-format.js';
import { findSession, HEAD_LIMIT, latestSession, listSessions, type SessionSummary } from '../../src/transcript/list.js';
import { projectDir } from '../../src/transcript/paths.js';
import { promptOfCutLine } from '../../src/transcript/peek.js';
import type { SessionStore } from '../../src/transcript/store.js';
import { CWD, compaction, createStore, turn, user } from './helpers.js';
import { tempHome, tempDir } from '../kit/temp-dir.js';

let home: string;
beforeEach(() => (home = tempHome()));

async function session(cwd: string, prompts: string[], compacted = false): Promise<SessionStore> {
  const store = await createStore(home, { cwd });
  for (const p of prompts) {
    await store.append(user(p));
    await store.append(turn(`answer to ${p}`));
  }
  if (compacted) await store.appendBatch([turn('cp', undefined, true), compaction('auto', 'summary')]);
  await store.close();
  return store;
}

async function setMtime(store: SessionStore, when: Date): Promise<void> {
  await utimes(store.path, when, when);
}

describe('listSessions', () => {
  it("lists this directory's sessions with first prompt, turns, compaction and last activity", async () => {
    const a = await session(CWD, ['  fix the\n failing   test ', 'and the lint'], true);
    const b = await session(CWD, ['add a README']);
    await session('/elsewhere', ['other project']);

    const rows = await listSessions(home, CWD);
    expect(rows.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    const rowA = rows.find((r) => r.id === a.id)!;
    expect(rowA).toMatchObject({ cwd: CWD, firstPrompt: 'fix the failing test', turns: 2, compacted: true, provider: 'anthropic', model: 'claude-test' });
    expect(rows.find((r) => r.id === b.id)).toMatchObject({ firstPrompt: 'add a README', turns: 1, compacted: false });
    expect(Math.abs(rowA.lastActivity.getTime() - Date.now())).toBeLessThan(60_000);

    const all = await listSessions(home, CWD, { all: true });
    expect(all.map((r) => r.cwd).sort()).toEqual(['/elsewhere', CWD, CWD]);
  });

  it('counts turns exactly when a record kind straddles a 1 MB scan chunk and ignores prompts that quote a kind', async () => {
    const store = await session(CWD, []);
    const ts = '2025-01-01T00:00:00.000Z';
    const line = (seq: number, content: string) => `${JSON.stringify({ seq, kind: 'user_message', ts, message: { role: 'user', content } })}\n`;
    const head = await readFile(store.path, 'utf8');
    // Pad record 2 so that record 3's `"kind":"user_message"` starts 8 bytes before the 1 MiB boundary.
    const prefix = '{"seq":3,'.length;
    const target = (1 << 20) - 8 - prefix;
    const bare = line(2, '"kind":"user_message"');
    const second = line(2, `"kind":"user_message"${'x'.repeat(target - head.length - bare.length)}`);
    expect(head.length + second.length + prefix).toBe((1 << 20) - 8);
    await appendFile(store.path, second + line(3, 'straddles') + line(4, '"kind":"compaction_applied"'));

    const [row] = await listSessions(home, CWD);
    expect(row.id).toBe(store.id);
    expect(row.turns).toBe(3);
    expect(row.compacted).toBe(false);
    expect(row.firstPrompt.startsWith('"kind":"user_message"xxx')).toBe(true);
  });

  it('returns nothing for a directory without sessions, and ignores stray folders', async () => {
    expect(await listSessions(home, CWD)).toEqual([]);
    await mkdir(join(projectDir(home, CWD), 'not-a-session'), { recursive: true });
    await mkdir(join(projectDir(home, CWD), '20250101-000000-abcdef'), { recursive: true });
    expect(await listSessions(home, CWD)).toEqual([]);
  });
});

describe('the first prompt of a long one', () => {
  /** A session whose first prompt is a pasted log of `mb` MB, then a short one. */
  async function pasted(mb: number): Promise<SessionStore> {
    const log = Array.from({ length: mb * 22_000 }, (_, n) => `line ${n}: request served in ${n % 97} ms by worker ${n % 13}`).join('\n');
    expect(log.length).toBeGreaterThan(mb << 20);
    const store = await createStore(home, { fsync: false });
    await store.append(user(`Why is worker 3 slow?\n\n${log}`));
    await store.append(turn('It is not.'));
    await store.append(user('thanks'));
    await store.append(turn('You are welcome.'));
    await store.close();
    return store;
  }

  it("lists a session whose first prompt is a 20 MB paste by the prompt's beginning, with its turns", async () => {
    const store = await pasted(20);
    const [row] = await listSessions(home, CWD);
    expect(row).toMatchObject({ id: store.id, cwd: CWD, turns: 2, compacted: false, provider: 'anthropic' });
    expect(row.firstPrompt).toMatch(/^Why is worker 3 slow\? line 0: request served in 0 ms by worker 0 line 1: /);
    expect(row.firstPrompt.length).toBeLessThanOrEqual(200);
    expect(formatSessionList([row]).split('\n')[1]).toMatch(/ {2}Why is worker 3 slow\? line 0: request served in 0 ms by wor…$/);
  });

  it('parses nothing of that prompt past the head it reads: bytes after it that are not JSON still list', async () => {
    // 5 MB: a size the listing once parsed whole.
    const store = await pasted(5);
    // Overwrite 1 MB of the prompt, from the end of what the listing reads on, with bytes no JSON parser takes.
    expect((await stat(store.path)).size).toBeGreaterThan(HEAD_LIMIT + (2 << 20));
    const fh = await open(store.path, 'r+');
    await fh.write(Buffer.alloc(1 << 20, '"{\\'), 0, 1 << 20, HEAD_LIMIT);
    await fh.close();
    const [row] = await listSessions(home, CWD);
    expect(row).toMatchObject({ id: store.id, turns: 2 });
    expect(row.firstPrompt).toMatch(/^Why is worker 3 slow\? line 0: /);
  });

  it('decodes a cut prompt line as far as it goes, an escape or a character cut in two left out', () => {
    const content = 'Fix "this" — 😀 tab\there\nnext \\ line \u0001 end';
    const json = `${JSON.stringify({ seq: 2, kind: 'user_message', ts: '2025-01-01T00:00:00.000Z', message: { role: 'user', content } })}\n`;
    // The emoji as raw UTF-8 and as an escaped surrogate pair.
    for (const line of [Buffer.from(json), Buffer.from(json.replace('😀', '\\ud83d\\ude00'))]) {
      const start = line.indexOf('"content":"') + '"content":"'.length;
      for (let cut = start; cut < line.length; cut++) {
        const shown = promptOfCutLine(line.subarray(0, cut));
        expect(shown !== undefined && content.startsWith(shown)).toBe(true);
      }
      expect(promptOfCutLine(line.subarray(0, line.length - 1))).toBe(content);
    }
    expect(promptOfCutLine(Buffer.from('{"seq":2,"kind":"assistant_turn","ts":"x","text":"hi'))).toBeUndefined();
  });
});

describe('findSession and latestSession', () => {
  it('finds a session of this directory', async () => {
    const a = await session(CWD, ['hello']);
    expect(await findSession(home, CWD, a.id)).toEqual({ id: a.id, cwd: CWD, dir: a.dir, transcript: a.path });
  });

  it('rejects an unknown id with one line pointing at `keen sessions`', async () => {
    const err = await findSession(home, CWD, '20250101-000000-abcdef').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeenError);
    expect((err as Error).message).toBe(`no session 20250101-000000-abcdef in ${CWD}; run \`keen sessions\` to list sessions`);
  });

  it('rejects a malformed id without touching the disk', async () => {
    await expect(findSession(home, CWD, '../../../etc/passwd')).rejects.toThrow(
      '"../../../etc/passwd" is not a session id (they look like 20250301-142233-k3f9qz); run `keen sessions` to list sessions',
    );
    await expect(stat(home)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("names the directory a session belongs to when it is another directory's", async () => {
    const other = await session('/elsewhere', ['x']);
    await expect(findSession(home, CWD, other.id)).rejects.toThrow(`session ${other.id} belongs to /elsewhere; run keen there (\`keen sessions --all\` lists every session)`);
  });

  it('picks the most recently active session as the latest', async () => {
    expect(await latestSession(home, CWD)).toBeUndefined();
    const older = await session(CWD, ['older but busy']);
    const newer = await session(CWD, ['newer']);
    await setMtime(newer, new Date('2025-01-01T00:00:00Z'));
    await setMtime(older, new Date('2025-02-01T00:00:00Z'));
    expect((await latestSession(home, CWD))?.id).toBe(older.id);
  });
});

describe('formatSessionList', () => {
  const now = new Date('2025-03-10T12:00:00Z');
  const row = (over: Partial<SessionSummary>): SessionSummary => ({
    id: '20250310-110000-abcdef',
    cwd: '/p',
    dir: '/d',
    transcript: '/d/t',
    lastActivity: new Date('2025-03-10T11:55:00Z'),
    firstPrompt: 'fix the failing test',
    turns: 3,
    compacted: false,
    ...over,
  });

  it('prints an aligned table', () => {
    const text = formatSessionList([row({}), row({ id: '20250301-090000-zzzzzz', lastActivity: new Date('2025-03-08T12:00:00Z'), turns: 12, compacted: true, firstPrompt: '' })], {
      now,
    });
    expect(text).toBe(
      [
        'ID                      LAST ACTIVE  TURNS  COMPACTED  FIRST PROMPT',
        '20250310-110000-abcdef  5m ago           3  no         fix the failing test',
        '20250301-090000-zzzzzz  2d ago          12  yes        (no prompt yet)',
        '',
      ].join('\n'),
    );
  });

  it('adds the directory with --all and trims long prompts', () => {
    const text = formatSessionList([row({ cwd: '/work/app', firstPrompt: 'a'.repeat(80) })], { now, showCwd: true, promptWidth: 10 });
    expect(text.split('\n')[0]).toBe('ID                      LAST ACTIVE  TURNS  COMPACTED  DIRECTORY  FIRST PROMPT');
    expect(text.split('\n')[1]).toBe(`20250310-110000-abcdef  5m ago           3  no         /work/app  ${'a'.repeat(9)}…`);
  });

  it('says how to start when there are no sessions', () => {
    expect(formatSessionList([])).toBe('No sessions found. Start one with `keen`.\n');
  });

  it('describes time relative to now, then as a date', () => {
    expect(relativeTime(new Date('2025-03-10T11:59:30Z'), now)).toBe('just now');
    expect(relativeTime(new Date('2025-03-10T09:00:00Z'), now)).toBe('3h ago');
    expect(relativeTime(new Date('2025-03-01T12:00:00'), now)).toBe('2025-03-01');
  });
});

describe('latestSession and empty sessions', () => {
  it('skips a newer session that has no user message, so --continue resumes real work', async () => {
    const { SessionStore } = await import('../../src/transcript/store.js');
    const { latestSession } = await import('../../src/transcript/list.js');
    const { rm } = await import('node:fs/promises');
    const home = tempDir('keen-latest-');
    const cwd = '/work/project-latest';
    const real = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'm', keenVersion: 't' });
    await real.append({ kind: 'user_message', message: { role: 'user', content: 'real work' } });
    await real.close();
    await new Promise((r) => setTimeout(r, 20));
    const empty = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'm', keenVersion: 't' });
    await empty.close();
    try {
      expect((await latestSession(home, cwd))?.id).toBe(real.id);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
