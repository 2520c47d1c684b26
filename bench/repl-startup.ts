/**
 * REPL startup benchmark: `npx tsx bench/repl-startup.ts [--runs N]` (after `npm run build`).
 *
 * Launches `node bin/keen.js` in a pseudo-terminal (util-linux `script`) and measures the time
 * until the first frame with the prompt (`Type a message`) reaches the terminal, against a bare
 * `node -e 0` launched the same way in the same run. Reports medians and the ratio
 * (target: at most 2.5×). The first frame is painted before Ink loads (src/repl/first-frame.ts);
 * the time until Ink's own prompt takes keys is the figure the speed issue targets: as soon as the
 * painted frame is there, the bench types `x`, and the mark is the prompt showing `› x` (the
 * painted frame cannot echo a key; it waits in stdin until Ink reads it). The time until the
 * session is open (the footer shows `% context`) is reported too. Each keen run uses a fresh
 * KEEN_HOME and is killed after the measurement; all share a compile cache that one REPL, left with
 * Ctrl+C twice, wrote first (Node writes its compile cache at exit; src/launch/compile-cache.ts).
 * KEEN_BENCH_NODE, KEEN_BENCH_BIN and KEEN_BENCH_AB (a second keen, run for run) as in first-byte.ts.
 *
 * `--resume-records N` also times `keen --resume <id>` of a synthetic session of N records (about
 * 1 KB each, compacting every 800 records as a session filling a 200k-token window does): the
 * same marks, and the last prompt of the transcript on screen.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abLine, abOrder, BENCH_NODE, KEEN_BIN, KEEN_BIN_B, median } from './common.js';
import { SessionStore } from '../src/transcript/store.js';
import { everyN, writeSynthetic } from './synthetic-session.js';

const args = process.argv.slice(2);
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(args[runsArg + 1]) : 15;
const resumeArg = args.indexOf('--resume-records');
const RESUME_RECORDS = resumeArg >= 0 ? Number(args[resumeArg + 1]) : 0;
const KEEN = KEEN_BIN;
const PROMPT = 'Type a message';
/** The footer once the session is open and Ink draws the screen. */
const READY = '% context';
/** Ink's prompt echoing the key typed once the painted frame showed. */
const TYPED = '› x';

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * ms from spawn until each of `marks` appears in the terminal output (escapes removed), or until
 * the process exits when there are none.
 */
function timeRun(command: string, env: NodeJS.ProcessEnv, marks: string[] = [], typeAfter?: string): Promise<number[]> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    // A 100x40 terminal, as a user's would be (a pty from `script` starts at 0x0).
    const child = spawn('script', ['-q', '-f', '-e', '-c', `stty rows 40 cols 100; ${command}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let finished = false;
    let typed = false;
    const seen: number[] = [];
    const finish = (times: number[]) => {
      if (finished) return;
      finished = true;
      child.kill('SIGKILL');
      done(times);
    };
    child.stdout.on('data', (d) => {
      out += d;
      const now = performance.now() - t0;
      const plain = stripAnsi(out);
      if (typeAfter && !typed && plain.includes(typeAfter)) {
        typed = true;
        child.stdin.write('x');
      }
      // Marks are found in any order; each is timed when it first appears.
      for (let i = 0; i < marks.length; i++) if (seen[i] === undefined && plain.includes(marks[i])) seen[i] = now;
      if (marks.length && seen.filter((t) => t !== undefined).length === marks.length) finish(seen);
    });
    child.on('exit', () => {
      if (!marks.length) finish([performance.now() - t0]);
      else if (!finished) fail(new Error(`exited before ${JSON.stringify(marks.filter((_, i) => seen[i] === undefined))} appeared:\n${out.slice(-2000)}`));
    });
    setTimeout(() => (finished ? undefined : fail(new Error(`timeout; output:\n${out.slice(-2000)}`))), 20_000).unref();
  });
}

/**
 * One REPL left the way users leave it (Ctrl+C twice, exit 0), so Node writes the REPL's modules'
 * compile cache; the measured runs are killed and never write one.
 */
function warmCompileCache(command: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn('script', ['-q', '-f', '-e', '-c', `stty rows 40 cols 100; ${command}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let sent = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (!sent && stripAnsi(out).includes(READY)) {
        sent = true;
        child.stdin.write('\x03');
        setTimeout(() => child.stdin.write('\x03'), 50);
      }
    });
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`the warm-up REPL exited ${code}:\n${out.slice(-2000)}`))));
    setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
  });
}

function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

interface Side {
  keen: string;
  cache: string;
  prompt: number[];
  ready: number[];
  typing: number[];
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'keen-bench-startup-'));
  const base: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', COLUMNS: '100', LINES: '40' };
  for (const k of Object.keys(base)) if (/^(ANTHROPIC|OPENAI|AWS|GEMINI|GOOGLE|KEEN|CODEX)_/.test(k)) delete base[k];
  base.KEEN_COMPILE_CACHE = join(root, 'compile-cache');
  const node = shellQuote(BENCH_NODE);
  const side = (keen: string, cache: string): Side => ({ keen, cache, prompt: [], ready: [], typing: [] });
  const sides = [side(KEEN, base.KEEN_COMPILE_CACHE)];
  if (KEEN_BIN_B) sides.push(side(KEEN_BIN_B, join(root, 'compile-cache-b')));
  const bare: number[] = [];
  try {
    // Warm the file cache once, and the compile cache as a user's earlier REPL would have.
    await timeRun(`${node} -e 0`, base);
    for (const s of sides) {
      await warmCompileCache(`cd ${shellQuote(root)} && ${node} ${shellQuote(s.keen)}`, {
        ...base,
        KEEN_HOME: join(root, 'home-warm'),
        KEEN_COMPILE_CACHE: s.cache,
        ANTHROPIC_API_KEY: 'bench',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      });
    }
    for (let i = 0; i < RUNS; i++) {
      bare.push((await timeRun(`${node} -e 0`, base))[0]);
      for (const s of sides.length > 1 ? abOrder(i, sides[0], sides[1]) : sides) {
        const home = join(root, `home-${i}-${sides.indexOf(s)}`);
        const env = { ...base, KEEN_HOME: home, KEEN_COMPILE_CACHE: s.cache, ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
        const [prompt, interactive, keys] = await timeRun(`cd ${shellQuote(root)} && ${node} ${shellQuote(s.keen)}`, env, [PROMPT, READY, TYPED], PROMPT);
        s.prompt.push(prompt);
        s.ready.push(interactive);
        s.typing.push(keys);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const b = median(bare);
  console.log(`bare node -e 0 (in a pty): median ${b.toFixed(0)} ms over ${RUNS} runs`);
  if (sides.length > 1) {
    const [A, B] = sides;
    console.log(`A/B interleaved, ${RUNS} runs each:\n  A = ${A.keen}\n  B = ${B.keen}`);
    console.log(abLine('first frame (painted)', A.prompt, B.prompt, b));
    console.log(abLine("Ink's prompt takes keys", A.typing, B.typing, b));
    console.log(abLine('the session open', A.ready, B.ready, b));
    return;
  }
  const [{ prompt: keen, ready, typing }] = sides;
  const k = median(keen);
  console.log(`keen first frame with the prompt: median ${k.toFixed(0)} ms (min ${Math.min(...keen).toFixed(0)}, max ${Math.max(...keen).toFixed(0)})`);
  console.log(`ratio: ${(k / b).toFixed(2)}x`);
  console.log(`Ink's prompt takes keys (a key typed at the painted frame shows): median ${median(typing).toFixed(0)} ms = ${(median(typing) / b).toFixed(2)}x (target <= 2.5x)`);
  console.log(`the session open (footer shows the model): median ${median(ready).toFixed(0)} ms = ${(median(ready) / b).toFixed(2)}x`);
  if (RESUME_RECORDS > 0) await resumeRuns(base, node, b);
}

/** `keen --resume` of a long synthetic session: keys, session open, and its last prompt shown. */
async function resumeRuns(base: NodeJS.ProcessEnv, node: string, bare: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'keen-bench-resume-'));
  try {
    const home = join(root, 'home');
    const store = await SessionStore.create(home, { cwd: root, provider: 'anthropic', model: 'claude-sonnet-4-5', keenVersion: 'bench' });
    await store.close();
    writeSynthetic(store.path, RESUME_RECORDS, everyN(RESUME_RECORDS, 800));
    const size = statSync(store.path).size;
    const lastPrompt =
      /"content":"(request \d+):/.exec(
        readFileSync(store.path, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"kind":"user_message"'))
          .at(-1) ?? '',
      )?.[1] ?? '';
    const env = { ...base, KEEN_HOME: home, ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
    const typing: number[] = [];
    const ready: number[] = [];
    const shown: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const [keys, open, last] = await timeRun(`cd ${shellQuote(root)} && ${node} ${shellQuote(KEEN)} --resume ${store.id}`, env, [TYPED, READY, lastPrompt], PROMPT);
      typing.push(keys);
      ready.push(open);
      shown.push(last);
    }
    console.log(`keen --resume of ${RESUME_RECORDS.toLocaleString('en-US')} records (${(size / 1e6).toFixed(0)} MB):`);
    console.log(`  prompt takes keys: median ${median(typing).toFixed(0)} ms = ${(median(typing) / bare).toFixed(2)}x`);
    console.log(`  session open (footer): median ${median(ready).toFixed(0)} ms; last prompt ("${lastPrompt}") on screen: median ${median(shown).toFixed(0)} ms`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
