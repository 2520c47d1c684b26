/**
 * Durable before visible, proven by fault injection: the session store's file-system layer
 * throws ENOSPC or EIO at every write-path call in turn (user message, each assistant message,
 * each tool result, the automatic-compaction batch, a cut-off reply, manual compaction). After
 * every fault the model history rebuilt from the transcript must equal AppState's history, and
 * the next turn must still work. Real store, real loop, real Anthropic SDK against the fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { SessionController, type ControllerEvent } from '../../src/agent/session-controller.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { RecordedRequest } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { makeClient } from '../loop/loop-harness.js';
import { tempDir } from '../kit/temp-dir.js';
import { FailingIo } from '../transcript/failing-io.js';

const SUMMARY = '## Goal\nRead the files.\n## Relevant Files\nbig-1.txt';

let fake: ScriptedServer;
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => fake.close());

interface Rig {
  c: SessionController;
  store: SessionStore;
  io: FailingIo;
  cleanup(): Promise<void>;
}

async function rig(): Promise<Rig> {
  const cwd = tempDir('keen-durable-cwd-');
  const home = tempDir('keen-durable-home-');
  for (let i = 1; i <= 4; i++)
    fs.writeFileSync(path.join(cwd, `big-${i}.txt`), Array.from({ length: 150 }, (_, k) => `row ${k} of file ${i}: value_${(k * 7919 + i) % 10007} alpha beta`).join('\n'));
  const io = new FailingIo();
  const store = await SessionStore.create(home, { cwd, provider: 'anthropic', model: 'test-model', keenVersion: 'test', io });
  const adapter = await createAnthropicAdapter({ model: 'test-model', apiKey: 'k', baseURL: fake.url, home, env: {} });
  const appState = new AppState({
    client: makeClient(adapter, { window: 12_000, cwd }),
    registry: createDefaultRegistry(),
    model: 'test-model',
    maxOutputTokens: 1000,
    sessionId: store.id,
    buildSystemPrompt: () => 'You are Keen under test.',
  });
  return {
    c: new SessionController(appState, store),
    store,
    io,
    cleanup: async () => {
      await store.close();
      fs.rmSync(cwd, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Two tool calls per request (two results per turn), four requests, then an answer cut mid-stream. */
function script() {
  let parentTurns = 0;
  fake.setResponder((req: RecordedRequest) => {
    if (isCompactionRequest(req)) return { steps: [{ text: SUMMARY }] };
    parentTurns++;
    if (parentTurns === 3) return { steps: [{ text: 'Half an ans' }, { cut: true }] };
    if (parentTurns > 3) return { steps: [{ text: 'All read.' }] };
    const a = parentTurns * 2 - 1;
    return {
      steps: [
        { text: `Reading ${a} and ${a + 1}.` },
        { toolCall: { id: `r${a}`, name: 'read_file', args: { path: `big-${a}.txt` } } },
        { toolCall: { id: `r${a + 1}`, name: 'read_file', args: { path: `big-${a + 1}.txt` } } },
      ],
    };
  });
}

async function drain(stream: AsyncIterable<ControllerEvent>): Promise<{ events: ControllerEvent[]; thrown?: unknown }> {
  const events: ControllerEvent[] = [];
  try {
    for await (const ev of stream) events.push(ev);
  } catch (err) {
    return { events, thrown: err };
  }
  return { events };
}

async function inStep(r: Rig): Promise<void> {
  const loaded = await loadTranscript(r.store.path);
  expect(loaded.problems).toEqual([]);
  expect(buildConversation(loaded.records)).toEqual(r.c.appState.messages);
}

/** The whole scenario: a tool-loop turn with an automatic compaction, a retry turn, a manual compaction. */
async function scenario(r: Rig): Promise<ControllerEvent[]> {
  script();
  const events: ControllerEvent[] = [];
  const first = await drain(r.c.chat('Read the big files.'));
  events.push(...first.events);
  await inStep(r);
  const second = await drain(r.c.chat('Go on.'));
  events.push(...second.events);
  await inStep(r);
  const third = await drain(r.c.compact());
  events.push(...third.events);
  await inStep(r);
  for (const run of [first, second, third]) if (run.thrown) events.push({ type: 'error', error: { kind: 'other', message: String(run.thrown) } });
  return events;
}

describe('fault injection: history and transcript stay in step on every write path', () => {
  it('a clean run writes every kind of record (the paths below are all reached)', async () => {
    const r = await rig();
    try {
      r.io.arm(Number.MAX_SAFE_INTEGER);
      const events = await scenario(r);
      expect(events.some((e) => e.type === 'auto_compaction_applied')).toBe(true);
      expect(events.some((e) => e.type === 'compaction_done')).toBe(true);
      const kinds = (await loadTranscript(r.store.path)).records.map((x) => x.kind);
      expect(kinds.filter((k) => k === 'compaction_applied')).toHaveLength(2);
      expect(r.io.calls).toBeGreaterThan(20);
    } finally {
      await r.cleanup();
    }
  });

  it('ENOSPC or EIO at each write-path call in turn: one error, nothing half-applied, the session goes on', async () => {
    const clean = await rig();
    clean.io.arm(Number.MAX_SAFE_INTEGER);
    await scenario(clean);
    const total = clean.io.calls;
    await clean.cleanup();

    for (let k = 1; k <= total; k++) {
      const r = await rig();
      try {
        r.io.arm(k, k % 2 ? 'ENOSPC' : 'EIO');
        const events = await scenario(r);
        expect(r.io.failures, `fault at call ${k}`).toBe(1);
        const errors = events.filter((e) => e.type === 'error').map((e) => (e as { error: { message: string } }).error.message);
        expect(
          errors.some((m) => /ENOSPC|EIO/.test(m)),
          `fault at call ${k}: ${errors.join(' | ')}`,
        ).toBe(true);
        // Every tool call the model sees has its result: a resumed or continued request is valid.
        const history = r.c.appState.messages;
        const results = new Set(history.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
        for (const m of history) if (m.role === 'assistant') for (const call of m.tool_calls ?? []) expect(results.has(call.id), `fault at call ${k}: ${call.id}`).toBe(true);
      } finally {
        await r.cleanup();
      }
    }
  }, 120_000);
});
