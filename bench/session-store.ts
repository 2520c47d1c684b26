/**
 * Session store benchmark: `npx tsx bench/session-store.ts [--records N] [--runs N] [--lookups] [--curve] [--keep]`
 * (`--lookups`: only the listing and the lookups, without the loads, opens and appends; `--curve`:
 * only the resume size curve below).
 *
 * Builds a synthetic transcript (100,000 records, ~100 MB, with three automatic compactions) in a
 * temp KEEN_HOME, then reports medians of:
 * - load + project (loadTranscript + buildConversation), each run in a fresh process so peak RSS
 *   is the load's own (targets: < 1.5 s, peak growth < 3x the file size);
 * - listing the session (summarizeSession: head, tail, byte scan), and one whose first prompt is a
 *   pasted 20 MB file (its head read to a bound, not parsed whole);
 * - the lookups on the path of every `--session`/`--continue`/`--resume`: findSession (this
 *   directory's id, and the same id asked for from another directory) and latestSession (which
 *   skips a newer empty session), against the listing they used to cost;
 * - opening it to continue it (lock + what the next request needs): the full load against the
 *   fast open (`read: 'tail'`, from the last compaction on), on this transcript and on one of the
 *   same size that compacts as a real session does (every 800 records, about a 200k-token window);
 * - one append and one appendBatch (checkpoint + compaction_applied) on that file vs on a fresh,
 *   empty session (target: the same order of magnitude), fdatasync included.
 * With `--curve`: transcript size → resume, for 1, 10 and 100 MB transcripts that compact every
 * 800 records (about a 200k-token window) and that never compact. Each resume runs in a fresh
 * process as `keen run --continue` does it (the fast open, then the history the next request
 * needs), then reads what a resumed REPL replays; wall, CPU and the process's peak RSS.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHOWN_BUDGET } from '../src/agent/session-resume.js';
import { findSession, latestSession, summarizeSession } from '../src/transcript/list.js';
import { buildConversation } from '../src/transcript/projection.js';
import { loadTranscript } from '../src/transcript/reader.js';
import { SessionStore } from '../src/transcript/store.js';
import { median } from './common.js';
import { compactionBatch, everyN, userRecord, writeSynthetic } from './synthetic-session.js';

const args = process.argv.slice(2);

function numberArg(name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

/** Runs in a fresh process: measure one load + projection and the RSS it adds. */
async function childLoad(path: string): Promise<void> {
  const baseline = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const loaded = await loadTranscript(path);
  const history = buildConversation(loaded.records);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, baseline, peak, records: loaded.records.length, messages: history.length, warning: loaded.warning ?? null }),
  );
}

/** Runs in a fresh process: resume one session as `keen run --continue` does, then its REPL replay. */
async function childResume(home: string, cwd: string, id: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const opened = await SessionStore.open(home, cwd, id, { read: 'tail' });
  const history = buildConversation(opened.records);
  const openMs = performance.now() - t0;
  const openCpu = process.cpuUsage(cpu0);
  const t1 = performance.now();
  const shown = await opened.shown(SHOWN_BUDGET);
  const shownMs = performance.now() - t1;
  await opened.store.close();
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({ openMs, cpuMs: (openCpu.user + openCpu.system) / 1000, shownMs, peak, records: opened.records.length, messages: history.length, shown: shown.records.length }),
  );
}

interface ResumePoint {
  openMs: number;
  cpuMs: number;
  shownMs: number;
  peak: number;
  records: number;
  messages: number;
  shown: number;
}

/** Transcript size → resume time and RSS, compacting like a real session and never compacting. */
async function curve(runs: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'keen-bench-resume-'));
  const home = join(root, 'home');
  const cwd = '/bench/project';
  try {
    console.log(`resume by transcript size: medians of ${runs} fresh processes (open + history = keen run --continue; replay read = what a resumed REPL adds)`);
    for (const megabytes of [1, 10, 100]) {
      for (const shape of ['compacts every 800 records', 'never compacts']) {
        const store = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'bench-model', keenVersion: 'bench' });
        await store.close();
        // ~1.07 KB a record (bench/synthetic-session.ts).
        const count = Math.round(megabytes * 935);
        const size = writeSynthetic(store.path, count, shape === 'never compacts' ? new Set() : everyN(count, 800));
        const points: ResumePoint[] = [];
        for (let i = 0; i < runs; i++) {
          const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child-resume', home, cwd, store.id], {
            encoding: 'utf8',
            maxBuffer: 1 << 20,
          });
          if (child.status !== 0) throw new Error(`resume child failed: ${child.stderr}`);
          points.push(JSON.parse(child.stdout) as ResumePoint);
        }
        const m = (f: (p: ResumePoint) => number) => median(points.map(f));
        console.log(
          `  ${mb(size).padStart(9)}  ${shape.padEnd(26)}  open + history ${ms(m((p) => p.openMs)).padStart(8)} (${ms(m((p) => p.cpuMs))} CPU, ${points[0].records} records read, ${points[0].messages} messages)   replay read ${ms(m((p) => p.shownMs)).padStart(7)} (${points[0].shown} records)   peak RSS ${mb(m((p) => p.peak))}`,
        );
      }
    }
  } finally {
    if (args.includes('--keep')) console.log(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

async function main(recordCount: number, runs: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'keen-bench-session-'));
  const home = join(root, 'home');
  const cwd = '/bench/project';
  try {
    const big = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'bench-model', keenVersion: 'bench' });
    await big.close();
    const t0 = performance.now();
    const size = writeSynthetic(big.path, recordCount);
    console.log(`synthetic transcript: ${recordCount.toLocaleString('en-US')} records, ${mb(size)} (written in ${ms(performance.now() - t0)})`);

    const all = !args.includes('--lookups');
    if (all) loadAndProject(big, size, runs);
    await lookups(home, cwd, big, runs);
    if (all) await opensAndAppends(home, cwd, big, size, recordCount);
  } finally {
    if (args.includes('--keep')) console.log(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

/** The listing of the big session, then findSession and latestSession on it (medians of 4x runs, they are cheap). */
async function lookups(home: string, cwd: string, big: SessionStore, runs: number): Promise<void> {
  const n = runs * 4;
  const listMs = median(await repeat(n, async () => timed(() => summarizeSession(big.dir, big.id))));
  console.log(`list (summarise) the 100 MB session: median ${ms(listMs)} of ${n}`);
  const empty = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'bench-model', keenVersion: 'bench' });
  await empty.close();
  const later = new Date(Date.now() + 60_000);
  utimesSync(empty.path, later, later); // newer than the big one, and holding no user message
  const here = median(await repeat(n, async () => timed(() => findSession(home, cwd, big.id))));
  const elsewhere = median(await repeat(n, async () => timed(() => findSession(home, '/bench/other', big.id).catch(() => undefined))));
  const latest = median(
    await repeat(n, async () =>
      timed(async () => {
        if ((await latestSession(home, cwd))?.id !== big.id) throw new Error('latestSession did not skip the empty session');
      }),
    ),
  );
  const row = (name: string, v: number) => console.log(`  ${name}: median ${ms(v)} (ratio to the listing ${(v / listMs).toFixed(3)})`);
  console.log(`lookups on the 100 MB session (median of ${n}):`);
  row('findSession, this directory        ', here);
  row('findSession, from another directory', elsewhere);
  row('latestSession, past an empty newer ', latest);
  // A first prompt that was a pasted 20 MB file: the listing reads only its head for the title.
  const pasted = await SessionStore.create(home, { cwd: '/bench/pasted', provider: 'anthropic', model: 'bench-model', keenVersion: 'bench', fsync: false });
  const line = 'const answer = 42;\n';
  await pasted.append({ kind: 'user_message', message: { role: 'user', content: `Review this:\n${line.repeat(Math.ceil((20 << 20) / line.length))}` } });
  await pasted.close();
  const pastedMs = median(await repeat(n, async () => timed(() => summarizeSession(pasted.dir, pasted.id))));
  console.log(`list (summarise) a session whose first prompt is 20 MB: median ${ms(pastedMs)} of ${n}`);
}

/** Load + project in fresh processes: wall, CPU and the peak RSS the load adds. */
function loadAndProject(big: SessionStore, size: number, runs: number): void {
  const loads = [];
  for (let i = 0; i < runs; i++) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child-load', big.path], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`load child failed: ${child.stderr}`);
    loads.push(JSON.parse(child.stdout) as { ms: number; cpuMs: number; baseline: number; peak: number; records: number; messages: number });
  }
  const loadMs = median(loads.map((l) => l.ms));
  const loadCpu = median(loads.map((l) => l.cpuMs));
  const growth = median(loads.map((l) => l.peak - l.baseline));
  const peak = median(loads.map((l) => l.peak));
  console.log(
    `load + project: median ${ms(loadMs)} wall, ${ms(loadCpu)} CPU (all threads, GC included) over ${runs} fresh processes (target < 1.5 s) -> ${loads[0].records} records, ${loads[0].messages} messages after the last compaction`,
  );
  console.log(`memory: peak RSS grows by ${mb(growth)} = ${(growth / size).toFixed(2)}x the file (target < 3x); absolute peak RSS ${mb(peak)} = ${(peak / size).toFixed(2)}x`);
}

/** Full load against the fast open, on this transcript and on one that compacts like a real session; then appends. */
async function opensAndAppends(home: string, cwd: string, big: SessionStore, size: number, recordCount: number): Promise<void> {
  const fullOpen = await timeOpens(home, cwd, big.id, 'full', 5);
  const tailOpen = await timeOpens(home, cwd, big.id, 'tail', 5);
  console.log(`open to continue, last compaction 1/4 from the end (${tailOpen.records.toLocaleString('en-US')} records after it):`);
  console.log(`  full load  : median ${ms(fullOpen.ms)}`);
  console.log(`  fast open  : median ${ms(tailOpen.ms)} (ratio to full ${(tailOpen.ms / fullOpen.ms).toFixed(2)})`);

  const real = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'bench-model', keenVersion: 'bench' });
  await real.close();
  writeSynthetic(real.path, recordCount, everyN(recordCount, 800));
  const realFull = await timeOpens(home, cwd, real.id, 'full', 5);
  const realTail = await timeOpens(home, cwd, real.id, 'tail', 5);
  console.log(`open to continue, compacting every 800 records like a real session (${realTail.records} records after the last):`);
  console.log(`  full load  : median ${ms(realFull.ms)}`);
  console.log(`  fast open  : median ${ms(realTail.ms)} (ratio to full ${(realTail.ms / realFull.ms).toFixed(3)}; target <= 100 ms)`);

  const opened = (await SessionStore.open(home, cwd, big.id, { read: 'tail' })).store;
  const empty = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'bench-model', keenVersion: 'bench' });
  const rounds = 30;
  const bigAppend = await timeAppends(opened, rounds);
  const emptyAppend = await timeAppends(empty, rounds);
  await opened.close();
  await empty.close();
  const row = (name: string, onBig: number, onEmpty: number) =>
    console.log(`${name}: ${ms(onBig)} on the ${mb(size)} file vs ${ms(onEmpty)} on an empty one (ratio ${(onBig / onEmpty).toFixed(2)})`);
  console.log(`median of ${rounds}, fdatasync included:`);
  row('  append      ', bigAppend.append, emptyAppend.append);
  row('  appendBatch ', bigAppend.batch, emptyAppend.batch);
}

/** Median time of `runs` opens (lock, read, tail repair) and how many records the last one read. */
async function timeOpens(home: string, cwd: string, id: string, read: 'full' | 'tail', runs: number): Promise<{ ms: number; records: number }> {
  const times: number[] = [];
  let records = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const o = await SessionStore.open(home, cwd, id, { read });
    times.push(performance.now() - t);
    records = o.records.length;
    await o.store.close();
  }
  return { ms: median(times), records };
}

async function timeAppends(store: SessionStore, rounds: number): Promise<{ append: number; batch: number }> {
  const append: number[] = [];
  const batch: number[] = [];
  for (let i = 0; i < rounds; i++) {
    append.push(await timed(() => store.append(userRecord(i))));
    batch.push(await timed(() => store.appendBatch(compactionBatch(i))));
  }
  return { append: median(append), batch: median(batch) };
}

// ---- helpers ----------------------------------------------------------------------------------

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function repeat(n: number, fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}

function ms(v: number): string {
  return v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v < 10 ? 2 : 0)} ms`;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

// Last, so every constant above is initialised before the top-level await runs.
if (args[0] === '--child-load') {
  await childLoad(args[1]);
} else if (args[0] === '--child-resume') {
  await childResume(args[1], args[2], args[3]);
} else if (args.includes('--curve')) {
  await curve(numberArg('--runs', 3));
} else {
  await main(numberArg('--records', 100_000), numberArg('--runs', 5));
}
