import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionDir, transcriptPath } from '../../src/transcript/paths.js';
import { loadTranscript, type LoadedTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { CWD, compaction, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

let home: string;
beforeAll(() => (home = tempHome()));

/** Seeded PRNG (mulberry32) so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Seqs are 1..n and no problem sits before the damaged tail (a writer always repairs the tail). */
function expectConsistent(loaded: LoadedTranscript): void {
  expect(loaded.records.map((r) => r.seq)).toEqual(loaded.records.map((_, i) => i + 1));
  for (const p of loaded.problems) expect(p.offset).toBeGreaterThanOrEqual(loaded.tailStart);
}

describe('a crash at any byte of a batch', () => {
  it('leaves all of the batch or none of it, and the session keeps working', async () => {
    const store = await createStore(home);
    await store.append(user('before the batch'));
    const before = (await readFile(store.path)).length;
    await store.appendBatch([turn('checkpoint', undefined, true), compaction('auto', 'summary'), turn('third')]);
    await store.close();
    const full = await readFile(store.path);

    for (let cut = before; cut <= full.length; cut++) {
      await writeFile(store.path, full.subarray(0, cut));
      const loaded = await loadTranscript(store.path);
      expectConsistent(loaded);
      const whole = cut >= full.length - 1; // only the final newline may be missing
      expect({ cut, seqs: loaded.records.map((r) => r.seq) }).toEqual({ cut, seqs: whole ? [1, 2, 3, 4, 5] : [1, 2] });

      if (cut % 97 === 0 || cut === full.length - 1) {
        const { store: again } = await SessionStore.open(home, CWD, store.id);
        await again.appendBatch([user('x'), user('y')]);
        await again.close();
        const after = await loadTranscript(store.path);
        expect(after.warning).toBeUndefined();
        expectConsistent(after);
        expect(after.records).toHaveLength(whole ? 7 : 4);
      }
    }
  });
});

describe('SIGKILL while appending batches', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = join(home, '..', 'crash-child.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./crash-child.ts', import.meta.url))],
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  it('always leaves a transcript that loads, with consecutive seqs, whole batches and every acknowledged batch', async () => {
    const seed = Number(process.env.KEEN_CRASH_SEED ?? 20250301);
    const rand = random(seed);
    // `npm test` kills 40 times; `npm run test:slow` (CI) the full 240.
    const KILLS = Number(process.env.KEEN_CRASH_KILLS ?? 40);
    const PER_SESSION = 2; // a fresh transcript now and then keeps each child's load short
    let id = '';
    let damagedTails = 0;
    let acked = new Set<string>();

    for (let kill = 0; kill < KILLS; kill++) {
      if (kill % PER_SESSION === 0) {
        if (id) await rm(sessionDir(home, CWD, id), { recursive: true }); // checked already; free the disk
        const store = await createStore(home);
        await store.close();
        id = store.id;
        acked = new Set();
      }
      const early = rand() < 0.25;
      const delay = early ? rand() * 150 : rand() * 80;
      const child = spawn(process.execPath, [bundle, home, CWD, id, rand() < 0.5 ? 'on' : 'off'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      if (!early) {
        await new Promise<void>((resolve) => {
          const check = () => (out.includes('ready\n') ? resolve() : undefined);
          child.stdout.on('data', check);
          void exited.then(() => resolve());
          check();
        });
      }
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      const code = await exited;
      expect({ kill, seed, code, err }).toEqual({ kill, seed, code: null, err: '' });

      for (const m of out.matchAll(/^ok (\S+) (\d+)$/gm)) acked.add(`${m[1]} ${m[2]}`);
      const loaded = await loadTranscript(transcriptPath(home, CWD, id));
      if (loaded.problems.length > 0) damagedTails++;
      expectConsistent(loaded);

      // No half batch: every batch tag present has all of its parts, 1..size, in order.
      const parts = new Map<string, string[]>();
      for (const r of loaded.records) {
        if (r.kind !== 'user_message') continue;
        const [tag, part] = r.message.content.split(' ');
        parts.set(tag, [...(parts.get(tag) ?? []), part]);
      }
      for (const [tag, seen] of parts) {
        const size = Number(seen[0].split('/')[1]);
        expect({ kill, seed, tag, seen }).toEqual({ kill, seed, tag, seen: Array.from({ length: size }, (_, i) => `${i + 1}/${size}`) });
      }
      // Everything the child saw succeed survived the kill.
      for (const a of acked) {
        const [tag, size] = a.split(' ');
        expect({ kill, seed, tag, present: parts.get(tag)?.length }).toEqual({ kill, seed, tag, present: Number(size) });
      }
    }
    if (process.env.KEEN_CRASH_STATS) console.log(`crash test: ${KILLS} kills, ${damagedTails} left a damaged tail (seed ${seed})`);
  }, 120_000);
});
