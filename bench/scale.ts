/**
 * Cost in proportion to what the model sees: `npx tsx bench/scale.ts [--runs N] [--big] [--only NAME,…] [--keep]`.
 *
 * For each curve (size → wall time, CPU, peak RSS) the operation runs in a fresh child process
 * after a warm-up call elsewhere (GNU time gives the process's peak RSS; the child reports the
 * operation's own time and CPU, the median of 5 calls where a call leaves nothing behind), and the
 * medians over the children are printed with the target:
 * - grep: Keen's capped grep for a common word vs ripgrep's own time for the same cap
 *   (`rg … | head -n 250`), by repository size (target: ≤ 1.5×);
 * - bash: `yes` (target: stops at the volume cap, not at the 120 s timeout);
 * - mention: an `@` mention of a sparse file, by size (target: constant, no error past 2 GiB);
 * - list_dir and Tab completion, by directory size (target: bounded work before the cut);
 * - sessions: `keen sessions` (one page) and the full listing, by session count (target ≤ 1 s at 10,000);
 * - git status: the system prompt's run, by tracked files (target: within the turn's wait, 250 ms).
 * `--big` adds the largest sizes (300,000 files, 10,000 sessions); they take minutes to build.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GIT_STATUS_TURN_WAIT_MS, readGitStatus } from '../src/project/git-status.js';
import { complete } from '../src/repl/input/completion.js';
import { expandMentions } from '../src/repl/input/mentions.js';
import { createDefaultRegistry } from '../src/tools/index.js';
import { createHeadlessGate } from '../src/tools/permissions/index.js';
import { ripgrepPath } from '../src/tools/ripgrep.js';
import { listSessionPage, listSessions } from '../src/transcript/list.js';
import { SessionStore } from '../src/transcript/store.js';
import { median, measureSpawn, ROOT } from './common.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};

// ---- the child: one operation, timed -------------------------------------------------------------

/** One registry and gate for the child, made on first use, as a session makes them once. */
let session: { registry: ReturnType<typeof createDefaultRegistry>; gate: ReturnType<typeof createHeadlessGate> } | undefined;

async function callTool(cwd: string, name: string, input: unknown): Promise<string> {
  session ??= { registry: createDefaultRegistry({ sandbox: { mode: 'off', network: true } }), gate: createHeadlessGate({ yolo: true, allow: [] }) };
  const { registry, gate } = session;
  const msg = await registry.execute({ id: 'bench', name, args: JSON.stringify(input) }, { cwd, signal: new AbortController().signal, permissions: gate });
  return msg.content;
}

const OPERATIONS: Record<string, (fixture: string) => Promise<string>> = {
  grep: async (dir) => (await callTool(dir, 'grep', { pattern: 'the' })).split('\n').at(-1) ?? '',
  rg: async (dir) => {
    const rg = await ripgrepPath();
    spawnSync(
      'sh',
      ['-c', '"$0" --no-require-git --hidden --glob !.git --no-config --color never --line-number --no-heading --with-filename the . | head -n 250 > /dev/null', rg],
      { cwd: dir },
    );
    return '';
  },
  yes: async (dir) => (await callTool(dir, 'bash', { command: 'yes' })).split('\n').at(-1) ?? '',
  mention: async (file) => {
    const out = expandMentions(`look at @${path.basename(file)}`, path.dirname(file));
    return out.problems.join('; ') || `${out.text.length} chars`;
  },
  list_dir: async (dir) => (await callTool(dir, 'list_dir', {})).split('\n').at(-1) ?? '',
  readdir: async (dir) => `${(await fs.promises.readdir(dir, { withFileTypes: true })).length} entries`,
  tab: async (dir) => {
    complete('see @f', 6, dir);
    return `${complete('see @f', 6, dir).candidates.length} candidates`;
  },
  sessions_page: async (home) => `${(await listSessionPage(home, '/bench', { all: true, limit: 50 })).rows.length} rows`,
  sessions_all: async (home) => `${(await listSessions(home, '/bench', { all: true })).length} rows`,
  git_status_full: async (dir) => {
    const run = await readGitStatus(dir, { untracked: true }).done;
    return run.timedOut ? 'timed out' : 'complete';
  },
  git_status: async (dir) => {
    const run = await readGitStatus(dir).done;
    return run.timedOut ? 'timed out' : run.untrackedOff ? 'without untracked files' : 'complete';
  },
};

/**
 * A session's tools are loaded before they run: one warm-up call in a tiny folder, so a curve is
 * the operation's cost, not the modules' first load.
 */
async function warmUp(name: string): Promise<void> {
  const tiny = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-bench-warm-'));
  fs.writeFileSync(path.join(tiny, 'a.txt'), 'the\n');
  if (name === 'grep') await callTool(tiny, 'grep', { pattern: 'the' });
  if (name === 'list_dir') await callTool(tiny, 'list_dir', {});
  if (name === 'yes') await callTool(tiny, 'bash', { command: 'true' });
  fs.rmSync(tiny, { recursive: true, force: true });
}

async function child(): Promise<void> {
  const name = value('--child', '');
  const op = OPERATIONS[name];
  const fixture = value('--fixture', '');
  // git status's child is unref'd (it never keeps Keen alive): this keeps the bench's process up.
  setInterval(() => undefined, 1000);
  await warmUp(name);
  // Operations that leave nothing behind repeat in the child (median); the others run once.
  const repeat = ['grep', 'rg', 'list_dir', 'readdir', 'mention', 'sessions_page'].includes(name) ? 5 : 1;
  const times: number[] = [];
  const cpus: number[] = [];
  let note = '';
  for (let k = 0; k < repeat; k++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    note = await op(fixture);
    times.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  const ms = median(times);
  const cpuMs = median(cpus);
  process.stdout.write(`${JSON.stringify({ ms, cpuMs, note })}\n`);
  process.exit(0);
}

// ---- fixtures ----------------------------------------------------------------------------------

let workDir: string | undefined;
/** The fixtures' folder, made on first use (a child process makes none). */
function work(): string {
  workDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'keen-bench-scale-'));
  return workDir;
}

function filesTree(n: number, withGit: boolean): string {
  const dir = path.join(work(), `${withGit ? 'repo' : 'tree'}-${n}`);
  if (fs.existsSync(dir)) return dir;
  for (let k = 0; k < n; k++) {
    const sub = path.join(dir, `d${Math.floor(k / 1000)}`);
    if (k % 1000 === 0) fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${k}.txt`), `line one of file ${k}\nthe common word is here\nand the end\n`);
  }
  if (withGit) {
    const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', ...a], { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'bench');
    fs.writeFileSync(path.join(dir, 'd0', 'f0.txt'), 'changed\n');
    fs.writeFileSync(path.join(dir, 'untracked.txt'), 'new\n');
  }
  return dir;
}

function flatDir(n: number): string {
  const dir = path.join(work(), `flat-${n}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let k = 0; k < n; k++) fs.writeFileSync(path.join(dir, `f${String(k).padStart(6, '0')}.txt`), '');
  fs.writeFileSync(path.join(dir, '.gitignore'), '*.log\n');
  return dir;
}

function sparseFile(bytes: number): string {
  const file = path.join(work(), `sparse-${bytes}.log`);
  fs.writeFileSync(file, 'a log line\n'.repeat(30_000));
  fs.truncateSync(file, bytes);
  return file;
}

/** `n` sessions of one directory: a real transcript (two prompts, two answers), copied `n` times. */
async function sessionsHome(n: number): Promise<string> {
  const home = path.join(work(), `home-${n}`);
  const store = await SessionStore.create(home, { cwd: '/bench', provider: 'anthropic', model: 'm', keenVersion: '0.1.0' });
  for (const text of ['fix the failing test', 'and the lint']) {
    await store.append({ kind: 'user_message', message: { role: 'user', content: text } });
    await store.append({
      kind: 'assistant_turn',
      text: 'done',
      tools: [],
      usage: { input: 10, output: 5, cache_read: 0, cache_write: 0 },
      messages: [{ role: 'assistant', content: 'done' }],
    });
  }
  await store.close();
  const template = fs.readFileSync(store.path);
  const project = path.dirname(path.dirname(store.path));
  const letters = '0123456789abcdefghjkmnpqrstvwxyz';
  for (let k = 0; k < n; k++) {
    let tag = '';
    for (let v = k, i = 0; i < 6; i++, v = Math.floor(v / 32)) tag = letters[v % 32] + tag;
    const dir = path.join(project, `20260101-000000-${tag}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'transcript_events.jsonl'), template);
  }
  return home;
}

// ---- the parent: curves ------------------------------------------------------------------------

const runs = Number(value('--runs', '3'));
const big = flag('--big');
const only = value('--only', '').split(',').filter(Boolean);

interface Point {
  ms: number;
  cpuMs: number;
  rssMiB: number;
  note: string;
}

async function measure(op: string, fixture: string): Promise<Point> {
  const points: Point[] = [];
  for (let r = 0; r < runs; r++) {
    const m = await measureSpawn(['--import', 'tsx', path.join(ROOT, 'bench', 'scale.ts'), '--child', op, '--fixture', fixture], { cwd: ROOT, env: process.env });
    const line = m.stdout.trim().split('\n').at(-1) ?? '{}';
    const got = JSON.parse(line) as { ms: number; cpuMs: number; note: string };
    points.push({ ms: got.ms, cpuMs: got.cpuMs, rssMiB: (m.peakKiB ?? 0) / 1024, note: got.note });
  }
  return { ms: median(points.map((p) => p.ms)), cpuMs: median(points.map((p) => p.cpuMs)), rssMiB: median(points.map((p) => p.rssMiB)), note: points[0].note };
}

const fmt = (p: Point) => `${p.ms.toFixed(0).padStart(7)} ms  ${p.cpuMs.toFixed(0).padStart(6)} ms CPU  ${p.rssMiB.toFixed(0).padStart(5)} MiB`;
const want = (name: string) => only.length === 0 || only.includes(name);

async function main(): Promise<void> {
  console.log(`medians of ${runs} runs, each in a fresh process (time and CPU of the operation; RSS of the process)`);
  if (want('grep')) {
    console.log('\ngrep "the" (every file matches), capped at 250 lines — target: Keen ≤ 1.5× ripgrep | head -n 250');
    for (const n of big ? [10_000, 100_000, 300_000] : [10_000, 100_000]) {
      const dir = filesTree(n, false);
      const keen = await measure('grep', dir);
      const rg = await measure('rg', dir);
      console.log(`  ${String(n).padStart(7)} files  keen ${fmt(keen)}   rg ${fmt(rg)}   ratio ${(keen.ms / rg.ms).toFixed(2)}×`);
    }
  }
  if (want('bash')) {
    console.log('\nbash `yes` — target: stopped at the 50 MB volume cap, not at the 120 s timeout');
    const p = await measure('yes', work());
    console.log(`  ${fmt(p)}  ${p.note}`);
  }
  if (want('mention')) {
    console.log('\n@ mention of a sparse file — target: constant in the size, a cut note past 2 GiB');
    for (const bytes of [100 << 20, 1536 << 20, 3 * 1024 ** 3]) {
      const p = await measure('mention', sparseFile(bytes));
      console.log(`  ${`${(bytes / 2 ** 20).toFixed(0)} MiB`.padStart(10)}  ${fmt(p)}  ${p.note}`);
    }
  }
  if (want('list')) {
    console.log('\nlist_dir and Tab completion in one folder — target: bounded work before the cut to 500 / 50');
    for (const n of [1_000, 10_000, 100_000]) {
      const dir = flatDir(n);
      const list = await measure('list_dir', dir);
      const tab = await measure('tab', dir);
      const floor = await measure('readdir', dir);
      console.log(`  ${String(n).padStart(7)} entries  list_dir ${fmt(list)}   two Tabs ${fmt(tab)}   readdir alone ${fmt(floor)}`);
    }
  }
  if (want('sessions')) {
    console.log('\nsessions — target: ≤ 1 s at 10,000 sessions');
    for (const n of big ? [1_000, 10_000] : [1_000, 5_000]) {
      const home = await sessionsHome(n);
      const page = await measure('sessions_page', home);
      const all = await measure('sessions_all', home);
      console.log(`  ${String(n).padStart(7)} sessions  one page ${fmt(page)}   all ${fmt(all)}`);
    }
  }
  if (want('git')) {
    console.log(`\ngit status of the system prompt — target: within the turn's wait (${GIT_STATUS_TURN_WAIT_MS} ms)`);
    for (const n of big ? [10_000, 100_000] : [10_000, 50_000]) {
      const dir = filesTree(n, true);
      const p = await measure('git_status', dir);
      const full = await measure('git_status_full', dir);
      console.log(`  ${String(n).padStart(7)} files  as run ${fmt(p)}  ${p.note}   with untracked files ${fmt(full)}  ${full.note}`);
    }
  }
}

if (args.includes('--child')) await child();
else {
  try {
    await main();
  } finally {
    if (flag('--keep')) console.log(`fixtures kept in ${workDir}`);
    else if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}
