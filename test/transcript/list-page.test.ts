/**
 * Session listings that page: `listSessionPage` reads every transcript's mtime but summarises
 * only the page, newest first; pages are disjoint and together hold every session. `keen
 * sessions --page` prints one page and says how to reach the next.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFile, mkdir, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { findSession, latestSession, listSessionPage, listSessions } from '../../src/transcript/list.js';
import { cleanEnv, KEEN_BIN } from '../e2e/harness.js';
import { CWD, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

let home: string;
beforeEach(() => (home = tempHome()));

/** `n` sessions of `cwd`, the k-th written k minutes after the first; ids newest first. */
async function sessions(n: number, cwd = CWD): Promise<string[]> {
  const ids: string[] = [];
  const base = Date.now() - 24 * 3600_000;
  for (let k = 0; k < n; k++) {
    const store = await createStore(home, { cwd });
    await store.append(user(`prompt ${k}`));
    await store.append(turn(`answer ${k}`));
    await store.close();
    const when = new Date(base + k * 60_000);
    await utimes(store.path, when, when);
    ids.unshift(store.id);
  }
  return ids;
}

describe('listSessionPage', () => {
  it('pages the sessions newest first, disjoint and complete', async () => {
    const ids = await sessions(23);
    const first = await listSessionPage(home, CWD, { limit: 10 });
    const second = await listSessionPage(home, CWD, { limit: 10, offset: 10 });
    const third = await listSessionPage(home, CWD, { limit: 10, offset: 20 });
    expect([first.total, second.total, third.total]).toEqual([23, 23, 23]);
    expect(first.rows.map((r) => r.firstPrompt)).toEqual(Array.from({ length: 10 }, (_, k) => `prompt ${22 - k}`));
    expect([...first.rows, ...second.rows, ...third.rows].map((r) => r.id)).toEqual(ids);
    expect((await listSessionPage(home, CWD, { limit: 10, offset: 30 })).rows).toEqual([]);
    // Without a limit: every session, as before.
    expect((await listSessions(home, CWD)).map((r) => r.id).sort()).toEqual([...ids].sort());
  });
});

describe('listing many sessions', () => {
  /** `n` copies of one two-prompt transcript, and one large session (over the whole-read size). */
  async function many(n: number): Promise<{ big: string; project: string }> {
    const template = await createStore(home);
    await template.append(user('fix the failing test'));
    await template.append(turn('done'));
    await template.close();
    const project = dirname(template.dir);
    const letters = '0123456789abcdefghjkmnpqrstvwxyz';
    for (let k = 0; k < n; k++) {
      const dir = join(project, `20260101-000000-${letters[(k >> 10) & 31]}${letters[(k >> 5) & 31]}${letters[k & 31]}aaa`);
      await mkdir(dir, { recursive: true });
      await copyFile(template.path, join(dir, 'transcript_events.jsonl'));
    }
    const big = await createStore(home);
    for (let k = 0; k < 40; k++) {
      await big.append(user(`long prompt ${k} ${'x'.repeat(2000)}`));
      await big.append(turn(`answer ${k}`));
    }
    await big.close();
    return { big: big.id, project };
  }

  it('lists every session, the small ones read whole and a large one in parts', async () => {
    const { big } = await many(450);
    const rows = await listSessions(home, CWD);
    expect(rows).toHaveLength(452);
    expect(rows.find((r) => r.id === big)).toMatchObject({ turns: 40, firstPrompt: expect.stringMatching(/^long prompt 0 x+/) });
    expect(rows.filter((r) => r.firstPrompt === 'fix the failing test' && r.turns === 1)).toHaveLength(451);
    const page = await listSessionPage(home, CWD, { limit: 300 });
    expect(page.total).toBe(452);
    expect(page.rows).toHaveLength(300);
  });

  it('skips a session folder whose transcript is not a file, and lists the rest', async () => {
    const { project } = await many(3);
    await mkdir(join(project, '20260102-000000-zzzzzz', 'transcript_events.jsonl'), { recursive: true });
    // A FIFO would block a plain open until something writes to it.
    await mkdir(join(project, '20260102-000000-yyyyyy'));
    execFileSync('mkfifo', [join(project, '20260102-000000-yyyyyy', 'transcript_events.jsonl')]);
    expect(await listSessions(home, CWD)).toHaveLength(5);
    expect((await listSessionPage(home, CWD, { limit: 10 })).rows).toHaveLength(5);
  });

  it('--continue passes over a FIFO named like the newest transcript instead of waiting on it', async () => {
    const [newest] = await sessions(2);
    const project = dirname((await findSession(home, CWD, newest)).dir);
    await mkdir(join(project, '29991231-000000-ffffff'));
    execFileSync('mkfifo', [join(project, '29991231-000000-ffffff', 'transcript_events.jsonl')]);
    expect((await latestSession(home, CWD))?.id).toBe(newest);
  });
});

describe('keen sessions --page', () => {
  it('prints one page of 50 and names the next', async () => {
    const ids = await sessions(53);
    const run = (args: string[]) => spawnSync(process.execPath, [KEEN_BIN, 'sessions', ...args], { cwd: '/', env: cleanEnv({ KEEN_HOME: home }), encoding: 'utf8' });
    // The sessions belong to CWD, which need not exist: --all lists them from anywhere.
    const one = run(['--all']);
    expect(one.status, one.stderr).toBe(0);
    const rowsOf = (out: string) =>
      out
        .split('\n')
        .filter((l) => /^\d{8}-\d{6}-/.test(l))
        .map((l) => l.split(' ')[0]);
    expect(rowsOf(one.stdout)).toEqual(ids.slice(0, 50));
    expect(one.stdout.trimEnd().split('\n').at(-1)).toBe('Page 1 of 2 (53 sessions); `keen sessions --all --page 2` shows older ones.');
    const two = run(['--all', '--page', '2']);
    expect(rowsOf(two.stdout)).toEqual(ids.slice(50));
    expect(two.stdout.trimEnd().split('\n').at(-1)).toBe('Page 2 of 2 (53 sessions).');
    const bad = run(['--page', 'x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe('keen: --page must be a whole number from 1, not x');
  });
});
