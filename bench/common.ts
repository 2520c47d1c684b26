import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Shared by the bench scripts: where things are, and the statistics they print. */
export const ROOT = path.resolve(import.meta.dirname, '..');
/** The keen to launch: this checkout's, or `KEEN_BENCH_BIN` (another checkout's, for an A/B). */
export const KEEN_BIN = process.env.KEEN_BENCH_BIN ? path.resolve(process.env.KEEN_BENCH_BIN) : path.join(ROOT, 'bin', 'keen.js');
/**
 * A second keen to run interleaved with KEEN_BIN, run for run in alternating order (an A/B on a
 * busy machine: both see the same load), or undefined: `KEEN_BENCH_AB=<bin/keen.js>`.
 */
export const KEEN_BIN_B = process.env.KEEN_BENCH_AB ? path.resolve(process.env.KEEN_BENCH_AB) : undefined;
/** The Node that runs keen and the bare-node floor: this one, or `KEEN_BENCH_NODE` (e.g. Node 24's binary). */
export const BENCH_NODE = process.env.KEEN_BENCH_NODE || process.execPath;

/** The benches that spawn keen need the bundle; exit with one line when it is missing. */
export function requireBuilt(): void {
  if (!fs.existsSync(path.join(path.dirname(KEEN_BIN), '..', 'dist', 'main.js'))) {
    console.error('dist/main.js is missing: run `npm run build` first');
    process.exit(1);
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** `a` and `b` in the order run `i` of an interleaved A/B uses (alternating, so neither always goes first). */
export function abOrder<T>(i: number, a: T, b: T): [T, T] {
  return i % 2 ? [b, a] : [a, b];
}

/** One line of an interleaved A/B: both medians, B's ratio to `bare`, and the median paired difference. */
export function abLine(label: string, a: readonly number[], b: readonly number[], bare: number): string {
  const diffs = a.map((x, i) => b[i] - x);
  const fmt = (xs: readonly number[]) => `${median(xs).toFixed(1)} ms (${(median(xs) / bare).toFixed(2)}×)`;
  return `  ${label.padEnd(26)} A ${fmt(a)}  B ${fmt(b)}  B−A paired median ${median(diffs) >= 0 ? '+' : ''}${median(diffs).toFixed(1)} ms`;
}

/** The environment for a spawned keen: this one without provider, cloud or Keen variables. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ANTHROPIC|OPENAI|AWS|GEMINI|GOOGLE|KEEN|CODEX)_/.test(k)) env[k] = v;
  return env;
}

/** GNU time, which reports a child's peak RSS from wait4(2) after it exits (see measureSpawn). */
export const GNU_TIME = '/usr/bin/time';

export interface Measured {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak resident set size (ru_maxrss) in KiB; undefined without GNU time. */
  peakKiB?: number;
  /** User + system CPU in ms (10 ms resolution); undefined without GNU time. */
  cpuMs?: number;
}

/**
 * Spawns `node args…` and resolves its exit with wall time and, when GNU time is installed, the
 * peak RSS and CPU the kernel accounted to it. GNU time forks, execs node and reads the child's
 * rusage from wait4(2) once it has exited: nothing is loaded into the measured process and no
 * poll can miss a late peak (ru_maxrss is the high-water mark the kernel kept). Its own few
 * hundred KiB are a separate process and not counted. `wallMs` includes GNU time's fork/exec
 * (well under a millisecond), alike for keen and for bare node.
 */
export function measureSpawn(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Measured> {
  const timed = fs.existsSync(GNU_TIME);
  const report = timed ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keen-bench-time-')), 'rusage') : '';
  const [cmd, argv] = timed ? [GNU_TIME, ['-o', report, '-f', '%M %U %S', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let stdout = '';
    let stderr = '';
    const child = spawn(cmd, argv, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - start;
      const out: Measured = { code, stdout, stderr, wallMs };
      if (timed) {
        // GNU time writes "Command exited with non-zero status N" first when the child failed.
        const last = fs.readFileSync(report, 'utf8').trim().split('\n').pop() ?? '';
        const [kib, user, sys] = last.split(' ').map(Number);
        out.peakKiB = kib;
        out.cpuMs = (user + sys) * 1000;
        fs.rmSync(path.dirname(report), { recursive: true, force: true });
      }
      resolve(out);
    });
  });
}
