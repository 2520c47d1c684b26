import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { tempDir } from '../kit/temp-dir.js';
import type { ProviderCase } from './conformance-cases.js';

/** What a per-provider suite works against: its fake, and this test's workspace and KEEN_HOME. */
export interface ProviderRig {
  readonly fake: ScriptedServer;
  readonly cwd: string;
  readonly home: string;
}

/**
 * The set-up every per-provider suite shares: the provider's loopback fake (and its environment)
 * for the whole suite, its requests and responder reset before each test, and a fresh workspace
 * and KEEN_HOME per test (removed when the test finishes, see `tempDir`). `seed` writes the
 * workspace's files.
 */
export function useProviderRig(pc: ProviderCase, seed?: (cwd: string) => void): ProviderRig {
  let fake: ScriptedServer | undefined;
  let restore: (() => void) | undefined;
  let cwd = '';
  let home = '';
  beforeAll(async () => {
    restore = pc.setup?.();
    fake = await pc.start();
  });
  afterAll(async () => {
    await fake?.close();
    restore?.();
  });
  beforeEach(() => {
    fake?.requests.splice(0);
    fake?.setResponder(undefined);
    cwd = tempDir();
    home = tempDir('keen-home-');
    seed?.(cwd);
  });
  return {
    get fake() {
      if (!fake) throw new Error(`the ${pc.name} fake is used before beforeAll started it`);
      return fake;
    },
    get cwd() {
      return cwd;
    },
    get home() {
      return home;
    },
  };
}

/** A notes file of ~150 distinct lines, so tool results weigh something in the context. */
export const notes = (n: number) => Array.from({ length: 150 }, (_, k) => `note ${k} in file ${n}: token_${(k * 7919 + n) % 10007} gamma`).join('\n');

/** Writes `notes-1.txt` … `notes-6.txt`, and `note.txt` holding "the answer is 42" when asked. */
export function seedNotes(withAnswer: boolean): (cwd: string) => void {
  return (cwd) => {
    if (withAnswer) fs.writeFileSync(path.join(cwd, 'note.txt'), 'the answer is 42\n');
    for (let i = 1; i <= 6; i++) fs.writeFileSync(path.join(cwd, `notes-${i}.txt`), notes(i));
  };
}
