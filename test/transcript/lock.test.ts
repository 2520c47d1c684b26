import { spawnSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { SessionStore } from '../../src/transcript/store.js';
import { CWD, createStore, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

let home: string;
beforeEach(() => (home = tempHome()));

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('one writer per session', () => {
  it('refuses a second live writer with one line naming the session, then allows it after close', async () => {
    const first = await createStore(home);
    const err = await SessionStore.open(home, CWD, first.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeenError);
    const message = (err as Error).message;
    expect(message).toContain(`session ${first.id} is already open in another Keen process (pid ${process.pid})`);
    expect(message).toContain(join(first.dir, 'writer.lock'));
    expect(message).not.toContain('\n');

    await first.append(user('still mine'));
    await first.close();
    await expect(stat(join(first.dir, 'writer.lock'))).rejects.toMatchObject({ code: 'ENOENT' });

    const { store: second, records } = await SessionStore.open(home, CWD, first.id);
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect((await second.append(user('now yours'))).seq).toBe(3);
    await second.close();
  });

  it('lets only one of two simultaneous openers win', async () => {
    const created = await createStore(home);
    await created.close();
    const results = await Promise.allSettled([SessionStore.open(home, CWD, created.id), SessionStore.open(home, CWD, created.id)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    for (const r of results) if (r.status === 'fulfilled') await r.value.store.close();
  });

  it('takes over a stale lock left by a dead process', async () => {
    const created = await createStore(home);
    await created.close();
    const lockPath = join(created.dir, 'writer.lock');
    const pid = deadPid();
    await writeFile(lockPath, JSON.stringify({ pid, host: hostname(), since: '2025-01-01T00:00:00.000Z' }), { mode: 0o600 });

    const { store } = await SessionStore.open(home, CWD, created.id);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect((await store.append(user('after takeover'))).seq).toBe(2);
    await store.close();
  });

  it('takes over an unreadable lock file', async () => {
    const created = await createStore(home);
    await created.close();
    await writeFile(join(created.dir, 'writer.lock'), 'not json');
    const { store } = await SessionStore.open(home, CWD, created.id);
    await store.close();
  });

  it('treats a lock from another host as live and names that host', async () => {
    const created = await createStore(home);
    await created.close();
    await writeFile(join(created.dir, 'writer.lock'), JSON.stringify({ pid: 4242, host: 'build-box', since: '2025-01-01T00:00:00.000Z' }));
    await expect(SessionStore.open(home, CWD, created.id)).rejects.toThrow(`session ${created.id} is already open in another Keen process (pid 4242 on build-box)`);
  });
});
