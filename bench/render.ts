/**
 * REPL rendering benchmark: `npx tsx bench/render.ts [--turns N] [--deltas N] [--runs N] [--lists]`.
 *
 * 1. `keen --resume <id>` of a stored session of 500 turns (2,000 transcript items: prompt, text,
 *    tool card, code block), through the real path: the session is written with the session
 *    store, then `startInteractive` (what `keen --resume` runs) opens it, replays it and draws it
 *    on an in-memory 100×40 terminal. Each run is a fresh process (cold, like a real start);
 *    medians over `--runs` (default 5), each 500-turn run paired with a 1-turn one (the session
 *    open and the first frame, which do not grow with the transcript), of:
 *    - start → the last turn and the prompt on screen (what the user waits for);
 *    - a key typed right then → on screen (while the older turns render in the background);
 *    - start → the whole transcript in the terminal's scrollback;
 *    - a resize to 80 columns (after the 120 ms debounce) → the screen redrawn at 80, and → the
 *      whole transcript rewritten at 80; a resize back to 100 → the whole transcript rewritten.
 * 2. Streaming: mounts the App with the 500 finished turns already in `<Static>` (all at once,
 *    not what a resume does), then streams 2,000 short text deltas (with line breaks now and
 *    then, like a model's answer) through the same store actions a turn uses, one delta per
 *    event-loop turn. Reports per delta: reducer + React commit time (median, p95); per frame
 *    Ink writes: Ink's own render time (median, p95, max) and frames per second; input latency
 *    while streaming: a key written to stdin until a frame shows it (median, max). With
 *    `--lists` the streamed answer is nested lists (three levels, a paragraph after every eight
 *    items), so each list is held live while it grows and committed through marked when it ends.
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Instance } from 'ink';
import { median } from './common.js';

// As in the bundle. React and the reconciler must agree, so everything React-related is imported
// dynamically after this line.
process.env.NODE_ENV = 'production';
const args = process.argv.slice(2);
const numArg = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const TURNS = numArg('--turns', 500);
const DELTAS = numArg('--deltas', 2000);
const KEY_EVERY = 100;
const RUNS = numArg('--runs', 5);
const LISTS = args.includes('--lists');
const LIST_PREFIX = ['1. ', '   - ', '     1. ', '     1. ', '   - ', '1. ', '   * ', '     - '];

class FakeStdout extends EventEmitter {
  isTTY = true;
  writable = true;
  columns = 100;
  rows = 40;
  bytes = 0;
  last = '';
  /** Everything written since `mark()`. */
  since = '';
  /** Checked after every write: resolved with the time of the write that made it true. */
  waiter?: { test: (out: string) => boolean; resolve: (at: number) => void };
  write(chunk: string | Uint8Array): boolean {
    const s = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    this.bytes += s.length;
    this.last = s;
    this.since += s;
    if (s.startsWith('keen: ')) process.stderr.write(s); // a crash report (stderr is this stream too)
    if (this.waiter?.test(this.since)) {
      this.waiter.resolve(performance.now());
      this.waiter = undefined;
    }
    return true;
  }
  mark(): void {
    this.since = '';
  }
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  write(data: string): void {
    this.queue.push(data);
    this.emit('readable');
  }
  read(): string | null {
    return this.queue.shift() ?? null;
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

const ms = (v: number) => `${v.toFixed(2)} ms`;

async function streaming(): Promise<void> {
  const { createElement } = await import('react');
  const { render } = await import('ink');
  const { App } = await import('../src/repl/app.js');
  const { ReplRuntime } = await import('../src/repl/runtime.js');
  const { initialUiState } = await import('../src/repl/state/ui-reducer.js');
  const { createUiStore } = await import('../src/repl/state/ui-store.js');
  const { RENDER_MAX_FPS } = await import('../src/repl/render-options.js');
  const { classifyText } = await import('../src/repl/markdown/markdown-lines.js');
  type NewItem = import('../src/repl/state/ui-state.js').NewItem;

  const items: NewItem[] = [{ kind: 'banner', version: 'bench', cwd: '/bench/project' }];
  for (let t = 0; t < TURNS; t++) {
    items.push({ kind: 'user', text: `Question ${t}: why does the parser fail on input ${t}?`, attachments: [] });
    items.push({ kind: 'markdown', lead: true, lines: classifyText(`Let me look at **src/parser.ts** around line ${t}.\n\n- first point\n- second point`) });
    items.push({
      kind: 'tool',
      expanded: false,
      card: { id: `t${t}`, name: 'read_file', args: 'src/parser.ts', status: 'done', output: '1\tconst a = 1;\n2\tconst b = 2;\n3\tconst c = 3;\n4\tmore' },
    });
    items.push({ kind: 'markdown', lead: true, lines: classifyText('```ts\nexport function parse(input: string): Ast {\n  return new Parser(input).run();\n}\n```\nFixed.') });
  }

  const store = createUiStore(initialUiState());
  const runtime = new ReplRuntime({ cwd: '/bench/project', env: {}, flags: {}, store, version: 'bench', onExit: () => undefined });
  store.dispatch({ type: 'session', info: { sessionId: 'bench', provider: 'anthropic', model: 'bench', inputBudget: 190_000, window: 200_000, contextTokens: 50_000 } });

  const stdout = new FakeStdout();
  const stdin = new FakeStdin();
  const frameTimes: number[] = [];
  const frameAt: number[] = [];
  const t0 = performance.now();
  const instance: Instance = render(createElement(App, { runtime }), {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: RENDER_MAX_FPS,
    onRender: ({ renderTime }) => {
      frameTimes.push(renderTime);
      frameAt.push(performance.now());
    },
  });
  store.dispatch({ type: 'reset', items });
  await new Promise((r) => setTimeout(r, 50));
  const initialDraw = performance.now() - t0;
  const bytesAfterHistory = stdout.bytes;
  frameTimes.length = 0;
  frameAt.length = 0;

  store.dispatch({ type: 'turn-start', mode: 'chat', status: 'Thinking…' });
  const words = ['the ', 'parser ', 'reads ', 'tokens ', '`peek()` ', '**then** ', 'fails ', 'on ', 'EOF', '. '];
  const deltaCost: number[] = [];
  const keyLatency: number[] = [];
  const start = performance.now();
  let line = 0;
  let lineStart = true;
  for (let i = 0; i < DELTAS; i++) {
    let text = i % 25 === 24 ? '\n' : i % 200 === 199 ? '\n\n' : words[i % words.length];
    if (LISTS && lineStart && !text.startsWith('\n')) text = (line % 9 === 8 ? '\nThen: ' : LIST_PREFIX[line % 9]) + text;
    lineStart = text.endsWith('\n');
    if (lineStart) line++;
    const d0 = performance.now();
    store.dispatch({ type: 'text', text });
    await Promise.resolve(); // React commits sync-lane updates in a microtask
    deltaCost.push(performance.now() - d0);
    if (i % KEY_EVERY === KEY_EVERY / 2) {
      const k0 = performance.now();
      const before = frameAt.length;
      stdin.write('x');
      // Wait for a frame drawn after the key reached the editor.
      while (!(store.getState().editor.text.endsWith('x') && frameAt.length > before && frameAt[frameAt.length - 1] > k0)) {
        await new Promise((r) => setImmediate(r));
      }
      keyLatency.push(frameAt[frameAt.length - 1] - k0);
    }
    await new Promise((r) => setImmediate(r));
  }
  store.dispatch({ type: 'turn-end' });
  await new Promise((r) => setTimeout(r, 50));
  const elapsed = performance.now() - start;
  instance.unmount();

  console.log(`all ${items.length} items through <Static> at once (not the resume path): ${ms(initialDraw)} (${(bytesAfterHistory / 1024).toFixed(0)} KiB written)`);
  console.log(`streaming: ${DELTAS} deltas in ${ms(elapsed)} (${(elapsed / DELTAS).toFixed(3)} ms per delta wall, event loop included)`);
  console.log(`per delta (reducer + React commit): median ${ms(percentile(deltaCost, 50))}, p95 ${ms(percentile(deltaCost, 95))}`);
  console.log(
    `per frame (Ink render + write): ${frameTimes.length} frames (${((frameTimes.length / elapsed) * 1000).toFixed(0)} fps), median ${ms(percentile(frameTimes, 50))}, p95 ${ms(percentile(frameTimes, 95))}, max ${ms(Math.max(...frameTimes))}`,
  );
  console.log(`input while streaming: key to frame median ${ms(percentile(keyLatency, 50))}, max ${ms(Math.max(...keyLatency))} (${keyLatency.length} keys)`);
}

// ---- 1. keen --resume -------------------------------------------------------------------------

const CLEAR = '\x1b[2J\x1b[3J\x1b[H';
const RESIZE_DEBOUNCE_MS = 120;

interface ResumeRun {
  prompt: number;
  key: number;
  scrollback: number;
  resizeScreen: number;
  resizeAll: number;
  resizeBack: number;
  bytes: number;
}

/** The time of the write after which `test` holds for what was written since the last mark. */
function until(stdout: FakeStdout, test: (out: string) => boolean, what: string): Promise<number> {
  if (test(stdout.since)) return Promise.resolve(performance.now());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 60_000);
    stdout.waiter = {
      test,
      resolve: (at) => {
        clearTimeout(timer);
        resolve(at);
      },
    };
  });
}

/** One cold `keen --resume` in this process; prints its timings as JSON. */
async function resumeChild(): Promise<void> {
  const { question } = await import('../test/repl/long-session.js');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'keen-bench-resume-')));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  try {
    const { writeLongSession } = await import('../test/repl/long-session.js');
    const id = await writeLongSession({ home, cwd, turns: TURNS });
    Object.assign(process.env, { KEEN_HOME: home, HOME: home, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    process.chdir(cwd);
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    const io = { stdout: stdout as unknown as NodeJS.WriteStream, stdin: stdin as unknown as NodeJS.ReadStream, stderr: stdout as unknown as NodeJS.WriteStream };
    const first = question(0);
    const last = question(TURNS - 1);
    const promptAfter = (needle: string) => (out: string) => {
      const at = out.lastIndexOf(needle);
      return at >= 0 && out.indexOf('Type a message', at) > at;
    };
    const whole = (out: string) => {
      const at = out.lastIndexOf(CLEAR);
      return at >= 0 && out.indexOf(first, at) > at && out.indexOf(last, at) > at;
    };

    const { startInteractive } = await import('../src/repl/interactive.js');
    const t0 = performance.now();
    const done = startInteractive({ resume: id }, io);
    const prompt = (await until(stdout, promptAfter(last), 'the last turn and the prompt')) - t0;
    if (TURNS < 20) {
      // The baseline: a session this short is drawn through <Static>; only the start is measured.
      stdin.write('\x03');
      stdin.write('\x03');
      await done;
      process.stderr.write(`${JSON.stringify({ prompt, key: 0, scrollback: 0, resizeScreen: 0, resizeAll: 0, resizeBack: 0, bytes: stdout.bytes })}\n`);
      return;
    }
    // A key while the scrollback is still being rendered in the background.
    const k0 = performance.now();
    stdin.write('qzq');
    const key = (await until(stdout, (out) => out.includes('qzq'), 'the key on screen')) - k0;
    stdin.write('\x03'); // Ctrl+C clears the input
    const scrollback = (await until(stdout, whole, 'the whole transcript')) - t0;

    stdout.mark();
    stdout.columns = 80;
    const r0 = performance.now();
    stdout.emit('resize');
    const resizeScreen = (await until(stdout, (out) => out.includes(CLEAR) && promptAfter(last)(out), 'the screen at 80 columns')) - r0 - RESIZE_DEBOUNCE_MS;
    const resizeAll = (await until(stdout, whole, 'the transcript at 80 columns')) - r0 - RESIZE_DEBOUNCE_MS;

    stdout.mark();
    stdout.columns = 100;
    const b0 = performance.now();
    stdout.emit('resize');
    const resizeBack = (await until(stdout, whole, 'the transcript at 100 columns again')) - b0 - RESIZE_DEBOUNCE_MS;

    stdin.write('\x03');
    stdin.write('\x03');
    await done;
    const run: ResumeRun = { prompt, key, scrollback, resizeScreen, resizeAll, resizeBack, bytes: stdout.bytes };
    process.stderr.write(`${JSON.stringify(run)}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One `--resume-child` process. */
function resumeRun(turns: number): ResumeRun {
  {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--resume-child', '--turns', String(turns)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const line = child.stderr.split('\n').find((l) => l.startsWith('{"prompt"'));
    if (child.status !== 0 || !line) throw new Error(`resume run failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
    return JSON.parse(line) as ResumeRun;
  }
}

async function resume(): Promise<void> {
  // Alternate the two so that load on a shared machine hits both alike.
  const base: ResumeRun[] = [];
  const runs: ResumeRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    base.push(resumeRun(1));
    runs.push(resumeRun(TURNS));
  }
  const med = (rs: ResumeRun[], k: keyof ResumeRun) => median(rs.map((r) => r[k]));
  const m = (k: keyof ResumeRun) => ms(med(runs, k));
  console.log(`keen --resume of ${TURNS} turns (${TURNS * 4} items) on a 100x40 terminal, median of ${RUNS} fresh processes each:`);
  console.log(`  start -> last turn and prompt on screen: ${m('prompt')}; a 1-turn session: ${ms(med(base, 'prompt'))} (session open, first frame)`);
  console.log(`  the transcript's share (difference of medians): ${ms(med(runs, 'prompt') - med(base, 'prompt'))} (target <= 300 ms)`);
  console.log(`  a key typed then -> on screen: ${m('key')}; start -> whole transcript in the scrollback (background): ${m('scrollback')}`);
  console.log(`  resize to 80 columns -> screen redrawn: ${m('resizeScreen')}, whole transcript: ${m('resizeAll')} (after the ${RESIZE_DEBOUNCE_MS} ms debounce)`);
  console.log(`  resize back to 100 (cached) -> whole transcript: ${m('resizeBack')}`);
}

if (args.includes('--resume-child')) {
  await resumeChild();
} else {
  await resume();
  await streaming();
}
