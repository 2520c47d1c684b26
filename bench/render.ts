/**
 * REPL rendering benchmark: `npx tsx bench/render.ts [--turns N] [--deltas N] [--lists]`.
 *
 * Mounts the real App (Ink, production React) on an in-memory 100×40 terminal, with a session of
 * 500 finished turns already in the transcript, then streams 2,000 short text deltas (with line
 * breaks now and then, like a model's answer) through the same store actions a turn uses, one
 * delta per event-loop turn. Reports:
 * - the initial draw of the 500-turn transcript;
 * - per delta: reducer + React commit time (median, p95);
 * - per frame Ink writes: Ink's own render time (median, p95, max) and frames per second;
 * - input latency while streaming: a key written to stdin until a frame shows it (median, max).
 * With `--lists` the streamed answer is nested lists (three levels, a paragraph after every eight
 * items), so each list is held live while it grows and committed through marked when it ends.
 */
import { EventEmitter } from 'node:events';
import type { Instance } from 'ink';

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
const LISTS = args.includes('--lists');
const LIST_PREFIX = ['1. ', '   - ', '     1. ', '     1. ', '   - ', '1. ', '   * ', '     - '];

class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 100;
  rows = 40;
  bytes = 0;
  last = '';
  write(chunk: string | Uint8Array): boolean {
    const s = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    this.bytes += s.length;
    this.last = s;
    return true;
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

async function main(): Promise<void> {
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
  store.dispatch({ type: 'session', info: { sessionId: 'bench', provider: 'anthropic', model: 'bench', inputBudget: 190_000, contextTokens: 50_000 } });

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

  console.log(`transcript: ${TURNS} turns (${items.length} items) drawn once in ${ms(initialDraw)} (${(bytesAfterHistory / 1024).toFixed(0)} KiB written)`);
  console.log(`streaming: ${DELTAS} deltas in ${ms(elapsed)} (${(elapsed / DELTAS).toFixed(3)} ms per delta wall, event loop included)`);
  console.log(`per delta (reducer + React commit): median ${ms(percentile(deltaCost, 50))}, p95 ${ms(percentile(deltaCost, 95))}`);
  console.log(
    `per frame (Ink render + write): ${frameTimes.length} frames (${((frameTimes.length / elapsed) * 1000).toFixed(0)} fps), median ${ms(percentile(frameTimes, 50))}, p95 ${ms(percentile(frameTimes, 95))}, max ${ms(Math.max(...frameTimes))}`,
  );
  console.log(`input while streaming: key to frame median ${ms(percentile(keyLatency, 50))}, max ${ms(Math.max(...keyLatency))} (${keyLatency.length} keys)`);
}

await main();
