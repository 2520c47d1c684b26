import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { MANUAL_COMPACTION_STATUS, SessionController } from '../../src/agent/session-controller.js';
import { TOOL_CALLS_DISABLED_MESSAGE } from '../../src/core/stream-options.js';
import { estimateMessage, estimateRequest } from '../../src/tokens/token-estimator.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { isCompactionRequest, lastUserText, stripCache } from '../kit/anthropic-wire-helpers.js';
import { makeClient } from '../loop/loop-harness.js';
import { tempDir } from '../kit/temp-dir.js';
import { collect } from '../kit/events.js';

const SYSTEM = 'You are Keen under test.';
const SUMMARY = '## Goal\nShip the parser.\n## Relevant Files\nsrc/parser.ts';

let fake: ScriptedServer;
let cwd: string;
let home: string;
let store: SessionStore;

beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => fake.close());
beforeEach(async () => {
  fake.requests.length = 0;
  fake.setResponder(undefined);
  cwd = tempDir();
  home = tempDir('keen-home-');
  for (let i = 1; i <= 8; i++)
    fs.writeFileSync(path.join(cwd, `big-${i}.txt`), Array.from({ length: 150 }, (_, k) => `row ${k} of file ${i}: value_${(k * 7919 + i) % 10007} alpha beta`).join('\n'));
  store = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'test-model', keenVersion: 'test' });
});
afterEach(async () => store.close());

async function controller(window = 200_000, history = undefined as undefined | ReturnType<typeof buildConversation>) {
  const adapter = await createAnthropicAdapter({ model: 'test-model', apiKey: 'k', baseURL: fake.url, home, env: {} });
  const appState = new AppState({
    client: makeClient(adapter, { window, cwd }),
    registry: createDefaultRegistry(),
    model: 'test-model',
    maxOutputTokens: 1000,
    sessionId: store.id,
    buildSystemPrompt: () => SYSTEM,
    history,
  });
  return new SessionController(appState, store);
}

async function records() {
  return (await loadTranscript(store.path)).records;
}

/** One finished turn so there is history to compact. */
async function seedTurn(c: SessionController) {
  fake.enqueue({ steps: [{ text: 'The parser lives in src/parser.ts.' }] });
  await collect(c.chat('Where is the parser?'));
}

describe('manual compaction (/compact)', () => {
  it('sends the normal system prompt and tools plus a final user message with guidance and focus, then applies', async () => {
    const c = await controller();
    await seedTurn(c);
    const normal = fake.requests[0].body;
    fake.enqueue({ steps: [{ text: SUMMARY }] });
    const events = await collect(c.compact('keep the API notes'));

    const req = fake.requests[1].body;
    expect(stripCache(req.system)).toEqual(stripCache(normal.system));
    expect(req.tools).toEqual(normal.tools);
    const final = lastUserText(req);
    expect(final).toContain('## Goal');
    expect(final).toContain('Do not use tools');
    expect(final).toContain('keep the API notes');
    expect(stripCache(req.messages.slice(0, -1))).toEqual(
      stripCache([...normal.messages, { role: 'assistant', content: [{ type: 'text', text: 'The parser lives in src/parser.ts.' }] }]),
    );

    expect(events.at(-1)).toEqual({ type: 'compaction_done', summary: SUMMARY });
    // One summary at the head, wrapped and marked as a level-1 summary.
    const compacted = { role: 'user', content: `<compacted_context>\n${SUMMARY}\n</compacted_context>`, summary_level: 1 };
    expect(c.appState.messages).toEqual([compacted]);
    const last = (await records()).at(-1)!;
    expect(last).toMatchObject({ kind: 'compaction_applied', mode: 'manual', status: MANUAL_COMPACTION_STATUS, messages: [compacted] });

    // The next turn: fresh system prompt + the single summary message + the new user message.
    fake.enqueue({ steps: [{ text: 'ok' }] });
    await collect(c.chat('Next step?'));
    const next = fake.requests[2].body;
    expect(next.system[0].text).toBe(SYSTEM);
    expect(stripCache(next.messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: compacted.content }] },
      { role: 'user', content: [{ type: 'text', text: 'Next step?' }] },
    ]);
  });

  it('a tool call during compaction is refused (error card), the model continues, the summary applies', async () => {
    const c = await controller();
    await seedTurn(c);
    fake.enqueue({ steps: [{ text: 'Checking first.' }, { toolCall: { id: 'x1', name: 'bash', args: { command: 'touch hacked' } } }] }, { steps: [{ text: SUMMARY }] });
    const events = await collect(c.compact());
    const finished = events.find((e) => e.type === 'tool_call_finished') as any;
    expect(finished.result).toMatchObject({ is_error: true, content: TOOL_CALLS_DISABLED_MESSAGE });
    expect(fs.existsSync(path.join(cwd, 'hacked'))).toBe(false);
    expect(JSON.stringify(fake.requests[2].body.messages.at(-1))).toContain(TOOL_CALLS_DISABLED_MESSAGE);
    expect(events.at(-1)).toEqual({ type: 'compaction_done', summary: SUMMARY }); // pre-tool preamble not folded in
  });

  it.each([
    ['an empty summary', () => fake.enqueue({ steps: [{ text: '  ' }] })],
    ['a provider error', () => fake.enqueue({ error: { status: 400, message: 'bad request' } })],
  ])('%s leaves history and transcript unchanged', async (_name, script) => {
    const c = await controller();
    await seedTurn(c);
    const before = structuredClone(c.appState.messages);
    const size = fs.statSync(store.path).size;
    script();
    const events = await collect(c.compact());
    expect(events.some((e) => e.type === 'error')).toBe(true);
    expect(events.some((e) => e.type === 'compaction_done')).toBe(false);
    expect(c.appState.messages).toEqual(before);
    expect(fs.statSync(store.path).size).toBe(size);
  });

  it('cancellation mid-stream leaves history and transcript unchanged', async () => {
    const c = await controller();
    await seedTurn(c);
    const before = structuredClone(c.appState.messages);
    const size = fs.statSync(store.path).size;
    fake.enqueue({ steps: [{ text: '## Goal\npartial' }, { hold: true }, { text: ' never' }] });
    const abort = new AbortController();
    const events = await collect(c.compact(undefined, abort.signal), (ev) => {
      if (ev.type === 'text_delta') abort.abort();
    });
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'cancelled' } });
    expect(c.appState.messages).toEqual(before);
    expect(fs.statSync(store.path).size).toBe(size);
  });
});

describe('automatic compaction persistence', () => {
  it('writes the checkpoint and compaction_applied as one atomic batch, then resumes from the replacement', async () => {
    let parentTurns = 0;
    fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ text: SUMMARY }] };
      parentTurns++;
      if (parentTurns > 4) return { steps: [{ text: ' Done reading.' }] };
      return { steps: [{ text: `Reading ${parentTurns}.` }, { toolCall: { id: `r${parentTurns}`, name: 'read_file', args: { path: `big-${parentTurns}.txt` } } }] };
    });
    const c = await controller(12_000);
    const events = await collect(c.chat('Read the big files.'));
    const checkpoint = events.find((e) => e.type === 'checkpoint') as { type: 'checkpoint'; text: string };
    expect(checkpoint.text).toMatch(/^Reading 1\.Reading 2\./);
    expect(events.find((e) => e.type === 'auto_compaction_applied')).toBeDefined();

    const recs = await records();
    const i = recs.findIndex((r) => r.kind === 'compaction_applied');
    const cp = recs[i - 1];
    // Each message was written as it completed; the checkpoint holds only what was not on disk yet.
    expect(cp).toMatchObject({ kind: 'assistant_turn', checkpoint: true, text: '', messages: [] });
    const before = recs.slice(recs.findIndex((r) => r.kind === 'user_message') + 1, i - 1);
    expect(before.map((r) => (r.kind === 'assistant_turn' ? r.text : '')).join('')).toBe(checkpoint.text);
    expect(cp.batch).toEqual({ first_seq: cp.seq, count: 2 });
    expect(recs[i].batch).toEqual({ first_seq: cp.seq, count: 2 });
    const applied = recs[i] as any;
    expect(applied.mode).toBe('auto');
    expect(applied.status).toBe('');
    expect(applied.messages).toHaveLength(1);
    expect(applied.messages[0].role).toBe('user'); // system stripped before storage
    expect(applied.messages[0].content).toContain('<last_user_message>\nRead the big files.\n</last_user_message>');

    // AppState holds the system-free replacement plus the post-compaction activity.
    expect(c.appState.messages[0]).toEqual(applied.messages[0]);
    expect(c.appState.messages.some((m) => m.role === 'system')).toBe(false);
    // The projection of the transcript equals AppState.
    expect(buildConversation(recs)).toEqual(c.appState.messages);
    expect(recs.at(-1)).toMatchObject({ kind: 'assistant_turn' });
    expect((recs.at(-1) as any).checkpoint).toBeUndefined();
  });
});

describe('what is recorded, and the context measure', () => {
  it('a first request refused before the model answers records nothing and takes the message back', async () => {
    const c = await controller();
    fake.enqueue({ error: { status: 401, message: 'invalid x-api-key' } });
    const events = await collect(c.chat('never reached'));
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'auth' } });
    expect(c.unsaved).toBe(true);
    expect(c.appState.messages).toEqual([]);
    expect((await records()).map((r) => r.kind)).toEqual(['session_started']);
  });

  it('a context-window error keeps the prompt (the session can be compacted)', async () => {
    const c = await controller();
    fake.enqueue({ error: { status: 400, message: 'prompt is too long: 215000 tokens > 200000 maximum' } });
    await collect(c.chat('too big'));
    expect(c.unsaved).toBe(false);
    expect((await records()).map((r) => r.kind)).toEqual(['session_started', 'user_message']);
  });

  it('after a turn the measure is the reported prompt plus the estimate of the reply, as the trigger counts', async () => {
    const c = await controller();
    fake.enqueue({ steps: [{ text: 'A reply of some length to be estimated locally.' }], usage: { input: 5000, output: 20 } });
    await collect(c.chat('hello'));
    const reply = c.appState.messages.at(-1)!;
    const measured = c.context.measure();
    expect(measured.source).toBe('reported');
    expect(measured.tokens).toBe(5000 + estimateMessage(reply));
    // Without a report (a freshly opened session), the same figure is the local estimate of the request.
    const fresh = await controller(200_000, [...c.appState.messages]);
    const local = fresh.context.measure();
    expect(local.source).toBe('local');
    expect(local.tokens).toBe(estimateRequest({ messages: [{ role: 'system', content: SYSTEM }, ...c.appState.messages], tools: c.appState.toolDefinitions }));
  });
});
