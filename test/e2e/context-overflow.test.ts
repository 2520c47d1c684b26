/**
 * The budget is checked before every model request, not only after a tool turn: spawned
 * `bin/keen.js` against each provider's fake, which refuses, as its service does, every request
 * whose input exceeds its context window. A chat-only session and a resume of a session longer
 * than the window both compact before sending and are never refused; and when only the service
 * knows the window, its refusal reaches the user as a full context window, not a bare error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SUMMARISER_SYSTEM_PROMPT } from '../../src/compaction/prompts.js';
import type { RecordedRequest } from '../fakes/script.js';
import { prose as kitProse } from '../kit/prose.js';
import { COMPACTION_MARKER } from '../loop/loop-harness.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { PROVIDER_CASES, type ProviderCase, type WindowedFake } from './provider-cases.js';

/** The window of both the model entry and the fake. */
const WINDOW = 12_000;
const SUMMARY = '## Goal\nKeep chatting about the parser.\n## Accomplished\nEarlier questions answered.';

const prose = (n: number, lines: number) => kitProse('note', n, lines);

const workspaces: Workspace[] = [];
afterAll(() => {
  for (const ws of workspaces) ws.cleanup();
});

interface Run {
  fake: WindowedFake;
  keen: (args: string[], stdin?: string) => ReturnType<typeof runKeen>;
  /** Sets the model entry's window in the user's config (the session's next run reads it). */
  setWindow(contextWindow: number): void;
}

/** One workspace and fake of `pc`, the model entry's window starting at `contextWindow`. */
async function withProvider(pc: ProviderCase, contextWindow: number, body: (run: Run) => Promise<void>): Promise<void> {
  assertBuilt();
  const fake = await pc.start();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-e2e-window-'));
  try {
    const { entry, env } = await pc.setup(fake, tmp);
    const ws = tempWorkspace({});
    workspaces.push(ws);
    const setWindow = (window: number) =>
      fs.writeFileSync(
        path.join(ws.home, 'config.json'),
        JSON.stringify({ models: { tiny: { provider: pc.provider, contextWindow: window, maxOutputTokens: 1000, ...entry } }, model: 'tiny' }),
      );
    setWindow(contextWindow);
    await body({ fake, setWindow, keen: (args, stdin) => runKeen(args, { cwd: ws.cwd, home: ws.home, stdin, env, timeoutMs: 90_000 }) });
  } finally {
    await fake.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
const userLine = (text: string) => JSON.stringify({ type: 'user', text });
const isFork = (r: RecordedRequest) => JSON.stringify(r.body).includes(COMPACTION_MARKER);
const isDocument = (r: RecordedRequest) => JSON.stringify(r.body).includes(SUMMARISER_SYSTEM_PROMPT.slice(0, 40));
const isParent = (r: RecordedRequest) => !isFork(r) && !isDocument(r);
/** The input sizes of the requests the fake refused for length. */
const refused = (fake: WindowedFake) => fake.requests.map(fake.inputTokens).filter((n) => n > WINDOW);

/** Answers every parent request with `answer(n)` and every compaction request with the summary. */
function chatter(fake: WindowedFake, answer: (n: number) => string): void {
  let n = 0;
  fake.setResponder((req) => (isParent(req) ? { steps: [{ text: answer(++n) }] } : { steps: [{ text: SUMMARY }] }));
}

describe.each(PROVIDER_CASES)('$provider: the budget is checked before every request', (pc) => {
  it(
    'a chat-only session of many text turns compacts and is never refused for length',
    () =>
      withProvider(pc, WINDOW, async ({ fake, keen }) => {
        fake.setContextWindow(WINDOW);
        chatter(fake, (n) => `Answer ${n}: ${prose(n, 20)}`);
        const turns = 24;
        const stdin = Array.from({ length: turns }, (_, i) => userLine(`Question ${i + 1}: ${prose(i + 100, 20)}`)).join('\n');

        const r = await keen(['--input-format', 'stream-json', '--output-format', 'stream-json'], stdin);

        expect(refused(fake)).toEqual([]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const out = lines(r.stdout);
        const results = out.filter((e) => e.type === 'result');
        expect(results).toHaveLength(turns);
        expect(results.every((e) => !e.is_error)).toBe(true);
        expect(results.at(-1).result).toMatch(/^Answer 24: /);
        // Without compaction the session would have grown to several windows.
        expect(out.filter((e) => e.type === 'compaction' && e.subtype === 'applied').length).toBeGreaterThanOrEqual(2);
        // Each compaction ran at the start of a turn, and that turn still answered its own question.
        const parents = fake.requests.filter(isParent);
        expect(parents).toHaveLength(turns);
        const after = parents.find((q) => JSON.stringify(q.body).includes('<compacted_context>'))!;
        expect(JSON.stringify(pc.lastMessage(after.body))).toMatch(/Question \d+: /);
      }),
    120_000,
  );

  it(
    'resuming a session longer than the window compacts before the first request and succeeds',
    () =>
      withProvider(pc, 200_000, async ({ fake, keen, setWindow }) => {
        // A session made with a large window and no limit at the service: more than twice WINDOW.
        chatter(fake, (n) => `Answer ${n}: ${prose(n, 45)}`);
        const stdin = Array.from({ length: 16 }, (_, i) => userLine(`Question ${i + 1}: ${prose(i + 100, 45)}`)).join('\n');
        const first = await keen(['--input-format', 'stream-json', '--output-format', 'stream-json'], stdin);
        expect(first.code).toBe(0);
        expect(fake.inputTokens(fake.requests.at(-1)!)).toBeGreaterThan(2.5 * WINDOW);

        // The same session on the small window, at a service that refuses what does not fit.
        setWindow(WINDOW);
        fake.requests.length = 0;
        fake.setContextWindow(WINDOW);
        chatter(fake, () => 'Resumed and answered.');
        const again = await keen(['run', '--continue', 'What is left to do?']);

        expect(refused(fake)).toEqual([]);
        expect(again.stderr).toBe('');
        expect(again.code).toBe(0);
        expect(again.stdout).toBe('Resumed and answered.\n');
        // The fork would not fit: one budgeted-document request, then the compacted parent request.
        expect(fake.requests.map((q) => (isDocument(q) ? 'document' : isFork(q) ? 'fork' : 'parent'))).toEqual(['document', 'parent']);
        const parent = fake.requests[1];
        expect(JSON.stringify(parent.body)).toContain('<compacted_context>');
        expect(JSON.stringify(pc.lastMessage(parent.body))).toContain('What is left to do?');
      }),
    120_000,
  );

  it(
    "the fake refuses an over-window request in the service's words, and keen recognises them",
    () =>
      withProvider(pc, 200_000, async ({ fake, keen }) => {
        // The model entry claims a large window; the service's is small: only the service can stop it.
        fake.setContextWindow(1_000);
        chatter(fake, () => 'never sent');
        const r = await keen(['run', '--format', 'json', `Question: ${prose(1, 60)}`]);
        expect(r.code).toBe(1);
        expect(fake.requests).toHaveLength(1);
        expect(JSON.parse(r.stdout).error.kind).toBe('context_window');
        expect(r.stderr.split('\n')[0]).toMatch(/^keen: .*context window.* compact it with \/compact/);
      }),
    120_000,
  );
});
