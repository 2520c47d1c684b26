import { appendFile, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { findSession, latestSession } from '../../src/transcript/list.js';
import { projectDir } from '../../src/transcript/paths.js';
import type { SessionStore } from '../../src/transcript/store.js';
import { CWD, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

// findSession and latestSession read a transcript's first line and, for latestSession, only as far
// as its first user message (src/transcript/peek.ts). These cases would go wrong if they read too
// little: a damaged first line, a user message past the first chunk or split by it.

let home: string;
beforeEach(() => (home = tempHome()));

const TS = '2025-01-01T00:00:00.000Z';
const SCAN_CHUNK = 64 << 10;

async function session(cwd: string, prompts: string[], when?: Date): Promise<SessionStore> {
  const store = await createStore(home, { cwd });
  for (const p of prompts) {
    await store.append(user(p));
    await store.append(turn(`answer to ${p}`));
  }
  await store.close();
  if (when) await utimes(store.path, when, when);
  return store;
}

/** Replace the transcript's first line (session_started) by `first`, keeping the rest. */
async function damageFirstLine(store: SessionStore, first: string): Promise<void> {
  const text = await readFile(store.path, 'utf8');
  await writeFile(store.path, first + text.slice(text.indexOf('\n')));
}

function line(seq: number, kind: string, payload: object): string {
  return `${JSON.stringify({ seq, kind, ts: TS, ...payload })}\n`;
}

/** An assistant turn whose visible text is `text` (its message says only "ok"). */
function assistantLine(seq: number, text: string): string {
  return line(seq, 'assistant_turn', { text, tools: [], usage: { input: 1, output: 1, cache_read: 0, cache_write: 0 }, messages: [{ role: 'assistant', content: 'ok' }] });
}

describe('findSession', () => {
  it('finds a session whose first line is damaged, with no directory to name', async () => {
    const s = await session(CWD, ['hello']);
    await damageFirstLine(s, '{"seq":1,"kind":"session_sta\n');
    expect(await findSession(home, CWD, s.id)).toEqual({ id: s.id, cwd: '', dir: s.dir, transcript: s.path });
  });

  it("says another directory's session belongs elsewhere even when its first line is damaged", async () => {
    const s = await session('/elsewhere', ['x']);
    await damageFirstLine(s, 'not json at all\n');
    const err = await findSession(home, CWD, s.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeenError);
    expect((err as Error).message).toBe(`session ${s.id} belongs to another directory; run keen there (\`keen sessions --all\` lists every session)`);
  });

  it('names the directory from the first record, however large the transcript', async () => {
    const s = await session('/elsewhere/big', ['start']);
    await appendFile(s.path, Array.from({ length: 40 }, (_, i) => assistantLine(4 + i, 'y'.repeat(8000))).join(''));
    await expect(findSession(home, CWD, s.id)).rejects.toThrow(`session ${s.id} belongs to /elsewhere/big; run keen`);
    expect((await findSession(home, '/elsewhere/big', s.id)).cwd).toBe('/elsewhere/big');
  });

  it('treats a session folder without a transcript as unknown, here and elsewhere', async () => {
    const id = '20250101-000000-abcdef';
    await mkdir(join(projectDir(home, CWD), id), { recursive: true });
    await mkdir(join(projectDir(home, '/elsewhere'), id), { recursive: true });
    await expect(findSession(home, CWD, id)).rejects.toThrow(`no session ${id} in ${CWD}; run \`keen sessions\` to list sessions`);
  });
});

describe('latestSession', () => {
  it('skips newer sessions without a user message, even one longer than the first scan chunk', async () => {
    const real = await session(CWD, ['real work'], new Date('2025-01-01T00:00:00Z'));
    await session(CWD, [], new Date('2025-03-01T00:00:00Z'));
    const noPrompt = await session(CWD, [], undefined);
    // Assistant output only (a prompt that was never recorded): 3 chunks, and no user message.
    await appendFile(noPrompt.path, Array.from({ length: 24 }, (_, i) => assistantLine(2 + i, 'z'.repeat(8000))).join(''));
    await utimes(noPrompt.path, new Date('2025-02-01T00:00:00Z'), new Date('2025-02-01T00:00:00Z'));
    expect((await latestSession(home, CWD))?.id).toBe(real.id);
  });

  it('finds a user message that starts just before a scan-chunk boundary and ends after it', async () => {
    await session(CWD, ['older'], new Date('2025-01-01T00:00:00Z'));
    const s = await session(CWD, [], undefined);
    const head = await readFile(s.path, 'utf8');
    // The user line's `"kind":"user_message"` starts 6 bytes before the first 64 KB boundary.
    const userPrefix = '{"seq":3,'.length;
    const bare = assistantLine(2, '');
    const filler = assistantLine(2, 'p'.repeat(SCAN_CHUNK - 6 - userPrefix - head.length - bare.length));
    expect(head.length + filler.length + userPrefix).toBe(SCAN_CHUNK - 6);
    await appendFile(s.path, filler + line(3, 'user_message', { message: { role: 'user', content: 'late prompt' } }));
    await utimes(s.path, new Date('2025-02-01T00:00:00Z'), new Date('2025-02-01T00:00:00Z'));
    expect(await latestSession(home, CWD)).toEqual({ id: s.id, cwd: CWD, dir: s.dir, transcript: s.path });
  });

  it('still continues a session whose first line is damaged but that holds prompts', async () => {
    await session(CWD, ['older'], new Date('2025-01-01T00:00:00Z'));
    const s = await session(CWD, ['newer'], new Date('2025-02-01T00:00:00Z'));
    await damageFirstLine(s, '{"seq":1,"kind":\n');
    await utimes(s.path, new Date('2025-02-01T00:00:00Z'), new Date('2025-02-01T00:00:00Z'));
    expect(await latestSession(home, CWD)).toEqual({ id: s.id, cwd: '', dir: s.dir, transcript: s.path });
  });

  it("never picks another directory's session, however recent", async () => {
    const mine = await session(CWD, ['mine'], new Date('2025-01-01T00:00:00Z'));
    await session('/elsewhere', ['theirs'], new Date('2025-06-01T00:00:00Z'));
    expect((await latestSession(home, CWD))?.id).toBe(mine.id);
    expect(await latestSession(home, '/nowhere')).toBeUndefined();
  });
});
