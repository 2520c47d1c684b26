/**
 * The budget is checked before every model request, not only after a tool turn: spawned
 * `bin/keen.js` against an Anthropic fake that refuses, as the service does, every request whose
 * input exceeds its context window. A chat-only session and a resume of a session longer than the
 * window both compact before sending and are never refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARISER_SYSTEM_PROMPT } from '../../src/compaction/prompts.js';
import { startAnthropicFake, inputTokens, type AnthropicFake } from '../fakes/anthropic-fake.js';
import type { RecordedRequest } from '../fakes/script.js';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { prose as kitProse } from '../kit/prose.js';

/** The window of both the model catalog entry and the fake. */
const WINDOW = 12_000;
const SUMMARY = '## Goal\nKeep chatting about the parser.\n## Accomplished\nEarlier questions answered.';
const config = (contextWindow: number) => JSON.stringify({ models: { tiny: { provider: 'anthropic', contextWindow, maxOutputTokens: 1000 } }, model: 'tiny' });

const prose = (n: number, lines: number) => kitProse('note', n, lines);

let fake: AnthropicFake;
const workspaces: Workspace[] = [];
beforeAll(async () => {
  assertBuilt();
  fake = await startAnthropicFake();
});
afterAll(async () => {
  await fake.close();
  for (const ws of workspaces) ws.cleanup();
});

function workspace(contextWindow: number): Workspace {
  const ws = tempWorkspace({ '.keen/config.json': config(contextWindow) });
  workspaces.push(ws);
  return ws;
}

const keen = (ws: Workspace, args: string[], stdin?: string) =>
  runKeen(args, { cwd: ws.cwd, home: ws.home, stdin, env: { ANTHROPIC_API_KEY: 'sk-e2e-key-000', ANTHROPIC_BASE_URL: fake.url }, timeoutMs: 90_000 });

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
const userLine = (text: string) => JSON.stringify({ type: 'user', text });
/** The input sizes of the requests the fake refused for length. */
const refused = (requests: RecordedRequest[]) => requests.map(inputTokens).filter((n) => n > WINDOW);
const isDocument = (r: RecordedRequest) => (r.body.system ?? []).some((b: any) => b.text === SUMMARISER_SYSTEM_PROMPT);

/** Answers every parent request with `answer(n)` and every compaction request with the summary. */
function chatter(answer: (n: number) => string): void {
  let n = 0;
  fake.setResponder((req) => (isCompactionRequest(req) || isDocument(req) ? { steps: [{ text: SUMMARY }] } : { steps: [{ text: answer(++n) }] }));
}

describe('the budget is checked before every request', () => {
  it('a chat-only session of many text turns compacts and is never refused for length', async () => {
    const ws = workspace(WINDOW);
    fake.requests.length = 0;
    fake.setContextWindow(WINDOW);
    chatter((n) => `Answer ${n}: ${prose(n, 20)}`);
    const turns = 24;
    const stdin = Array.from({ length: turns }, (_, i) => userLine(`Question ${i + 1}: ${prose(i + 100, 20)}`)).join('\n');

    const r = await keen(ws, ['--input-format', 'stream-json', '--output-format', 'stream-json'], stdin);

    expect(refused(fake.requests)).toEqual([]);
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
    const parents = fake.requests.filter((q) => !isCompactionRequest(q) && !isDocument(q));
    expect(parents).toHaveLength(turns);
    const after = parents.find((q) => JSON.stringify(q.body.messages).includes('<compacted_context>'))!;
    expect(JSON.stringify(after.body.messages.at(-1))).toMatch(/Question \d+: /);
  }, 120_000);

  it('resuming a session longer than the window compacts before the first request and succeeds', async () => {
    // A session made with a large window and no limit at the service: more than twice WINDOW.
    const ws = workspace(200_000);
    fake.requests.length = 0;
    fake.setContextWindow(undefined);
    chatter((n) => `Answer ${n}: ${prose(n, 45)}`);
    const stdin = Array.from({ length: 16 }, (_, i) => userLine(`Question ${i + 1}: ${prose(i + 100, 45)}`)).join('\n');
    const first = await keen(ws, ['--input-format', 'stream-json', '--output-format', 'stream-json'], stdin);
    expect(first.code).toBe(0);
    expect(inputTokens(fake.requests.at(-1)!)).toBeGreaterThan(2.5 * WINDOW);

    // The same session on the small window, at a service that refuses what does not fit.
    fs.writeFileSync(path.join(ws.cwd, '.keen/config.json'), config(WINDOW));
    fake.requests.length = 0;
    fake.setContextWindow(WINDOW);
    chatter(() => 'Resumed and answered.');
    const again = await keen(ws, ['run', '--continue', 'What is left to do?']);

    expect(refused(fake.requests)).toEqual([]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('Resumed and answered.\n');
    // The fork would not fit: one budgeted-document request, then the compacted parent request.
    expect(fake.requests.map((q) => (isDocument(q) ? 'document' : isCompactionRequest(q) ? 'fork' : 'parent'))).toEqual(['document', 'parent']);
    const parent = fake.requests[1];
    expect(JSON.stringify(parent.body.messages)).toContain('<compacted_context>');
    expect(JSON.stringify(parent.body.messages.at(-1))).toContain('What is left to do?');
  }, 120_000);
});
