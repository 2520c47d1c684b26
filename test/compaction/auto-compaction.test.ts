import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_CALLS_DISABLED_MESSAGE } from '../../src/core/stream-options.js';
import type { StreamEvent } from '../../src/core/events.js';
import { systemMessage, userMessage } from '../../src/core/message.js';
import { MAX_FAILED_ATTEMPTS } from '../../src/compaction/policy.js';
import type { FakeReply, RecordedRequest } from '../fakes/script.js';
import { isCompactionRequest, stripCache } from '../kit/anthropic-wire-helpers.js';
import { makeClient, request } from '../loop/loop-harness.js';
import { collect, eventOrder, textOf } from '../kit/events.js';
import { useLongSession } from './long-session.js';

const SUMMARY = '## Goal\nRead the big files.\n## Accomplished\nRead big-1.txt.';

const session = useLongSession(60, 'big');

async function client(window: number, maxTurns = 60) {
  const adapter = await session.adapter('test-model');
  return makeClient(adapter, { window, cwd: session.cwd, maxTurns });
}

/** The agent reads big-1, big-2, … until `reads` files are read, then answers `final`. */
function agentScript(reads: number, compaction: (req: RecordedRequest, n: number) => FakeReply, final = 'All files read.') {
  let parentTurns = 0;
  let compactions = 0;
  session.fake.setResponder((req) => {
    if (isCompactionRequest(req)) return compaction(req, ++compactions);
    parentTurns++;
    if (parentTurns > reads) return { steps: [{ text: final }] };
    return { steps: [{ text: `Reading ${parentTurns}.` }, { toolCall: { id: `call_${parentTurns}`, name: 'read_file', args: { path: `big-${parentTurns}.txt` } } }] };
  });
}

const parentRequests = () => session.fake.requests.filter((r) => !isCompactionRequest(r));
const compactionRequests = () => session.fake.requests.filter((r) => isCompactionRequest(r));
const start = () => request([systemMessage('You are a test agent.'), userMessage('Read all the big files please.')]);

describe('automatic compaction in the tool loop', () => {
  it('sends parent request + one user message, then resumes the same turn from the replacement', async () => {
    agentScript(4, () => ({ steps: [{ text: SUMMARY }] }));
    const events = await collect((await client(12_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()));

    const nested = compactionRequests();
    expect(nested).toHaveLength(1);
    const idx = session.fake.requests.indexOf(nested[0]);
    const before = session.fake.requests[idx - 1].body;
    const after = session.fake.requests[idx + 1].body;
    const n = stripCache(nested[0].body);
    // Same system prompt and tool definitions, byte for byte.
    expect(n.system).toEqual(stripCache(before.system));
    expect(n.tools).toEqual(stripCache(before.tools));
    expect(n.model).toBe(before.model);
    // Messages: the previous request's, then the reply and tool results it produced, then ONE user message.
    expect(n.messages.slice(0, before.messages.length)).toEqual(stripCache(before.messages));
    expect(n.messages).toHaveLength(before.messages.length + 3);
    expect(n.messages.at(-1).role).toBe('user');

    // The next parent request carries the replacement: same system, one user message.
    expect(stripCache(after.system)).toEqual(n.system);
    expect(after.messages).toHaveLength(1);
    const replaced = JSON.stringify(after.messages[0].content);
    expect(replaced).toContain('<compacted_context>');
    expect(replaced).toContain('Read big-1.txt.');
    expect(replaced).toContain('<last_user_message>\\nRead all the big files please.\\n</last_user_message>');
    expect(after.tools).toEqual(before.tools);

    const order = eventOrder(events);
    const s = order.indexOf('auto_compaction_started');
    expect(order.slice(s, s + 2)).toEqual(['auto_compaction_started', 'auto_compaction_applied']);
    expect(order.at(-1)).toBe('done');
    const applied = events.find((e) => e.type === 'auto_compaction_applied') as Extract<StreamEvent, { type: 'auto_compaction_applied' }>;
    expect(applied.replacement[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
    expect(applied.tokensAfter).toBeLessThan(applied.tokensBefore);
    // The private summary never reaches the parent stream.
    expect(textOf(events)).not.toContain('Read big-1.txt.');
    expect(textOf(events)).toContain('All files read.');
  });

  it('a tool call in the summary request is refused, nothing runs, and the summary still applies', async () => {
    agentScript(4, (req, k) => {
      const msgs = req.body.messages;
      const refused = JSON.stringify(msgs.at(-1)).includes(TOOL_CALLS_DISABLED_MESSAGE);
      if (!refused) return { steps: [{ text: 'Let me check.' }, { toolCall: { id: `evil_${k}`, name: 'write_file', args: { path: 'pwned.txt', content: 'x' } } }] };
      return { steps: [{ text: SUMMARY }] };
    });
    const events = await collect((await client(12_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()));
    expect(fs.existsSync(path.join(session.cwd, 'pwned.txt'))).toBe(false);
    const nested = compactionRequests();
    expect(nested).toHaveLength(2);
    expect(JSON.stringify(nested[1].body.messages.at(-1))).toContain(TOOL_CALLS_DISABLED_MESSAGE);
    const applied = events.find((e) => e.type === 'auto_compaction_applied') as any;
    expect(applied.summary).toBe(SUMMARY); // only the text after the last tool activity
    expect(events.some((e) => e.type === 'tool_call_started' && e.call.name === 'write_file')).toBe(false);
  });

  it('an empty summary fails: history unchanged, the parent request continues', async () => {
    agentScript(3, () => ({ steps: [{ text: '   ' }] }));
    const events = await collect((await client(12_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()));
    const failed = events.find((e) => e.type === 'auto_compaction_failed') as any;
    expect(failed.reason).toMatch(/empty/);
    const nested = compactionRequests()[0];
    const next = session.fake.requests[session.fake.requests.indexOf(nested) + 1];
    // The parent request is exactly the nested request minus its final user message.
    expect(stripCache(next.body.messages)).toEqual(stripCache(nested.body.messages.slice(0, -1)));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(events.some((e) => e.type === 'auto_compaction_applied')).toBe(false);
  });

  it('a summary that would not make the context smaller is discarded', async () => {
    const huge = `## Goal\n${'very long summary text '.repeat(4000)}`;
    agentScript(3, () => ({ steps: [{ text: huge }] }));
    const events = await collect((await client(12_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()));
    const failed = events.find((e) => e.type === 'auto_compaction_failed') as any;
    expect(failed.reason).toMatch(/did not make the context smaller|longer than the history it replaces/);
    expect(JSON.stringify(parentRequests().at(-1)!.body.messages)).not.toContain('<compacted_context>');
  });

  it('cancelling the child while it runs leaves the parent running and unchanged', async () => {
    let cancel = () => {};
    // Cancelled once its request is at the server, whose reply then holds until the client hangs up.
    agentScript(3, () => (cancel(), { steps: [{ text: '## Goal\n' }, { hold: true }, { text: 'never' }] }));
    const events = await collect((await client(12_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()), (ev) => {
      if (ev.type === 'auto_compaction_started') cancel = ev.cancel;
    });
    expect(events.some((e) => e.type === 'auto_compaction_cancelled')).toBe(true);
    expect(events.some((e) => e.type === 'auto_compaction_applied')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(textOf(events)).toContain('All files read.');
  });

  it('cancelling the parent cancels the child too', async () => {
    const parent = new AbortController();
    // Aborted once the child's request is at the server, whose reply then holds until the client hangs up.
    agentScript(3, () => (parent.abort(), { steps: [{ text: '## Goal\n' }, { hold: true }, { text: 'never' }] }));
    const events = await collect((await client(12_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry(), { signal: parent.signal }));
    expect(events.some((e) => e.type === 'auto_compaction_cancelled')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'cancelled' } });
  });

  it('a provider context-length error goes down the error path and never starts a compaction', async () => {
    let parentTurns = 0;
    session.fake.setResponder(() => {
      parentTurns++;
      if (parentTurns === 1) return { steps: [{ toolCall: { id: 'c1', name: 'read_file', args: { path: 'big-1.txt' } } }] };
      return { error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } };
    });
    const events = await collect((await client(200_000)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()));
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'context_window' } });
    expect(events.some((e) => e.type.startsWith('auto_compaction'))).toBe(false);
    expect(compactionRequests()).toHaveLength(0);
  });

  it(`50 tool turns over the threshold with a summary that always fails: at most ${MAX_FAILED_ATTEMPTS} attempts`, async () => {
    agentScript(50, () => ({ error: { status: 400, message: 'invalid summary request' } }));
    const events = await collect((await client(12_000, 80)).streamChat(start(), (await import('../../src/tools/index.js')).createDefaultRegistry()));
    expect(compactionRequests().length).toBeGreaterThan(0);
    expect(compactionRequests().length).toBeLessThanOrEqual(MAX_FAILED_ATTEMPTS);
    expect(events.filter((e) => e.type === 'auto_compaction_failed')).toHaveLength(compactionRequests().length);
    expect(parentRequests()).toHaveLength(51);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  }, 60_000);

  it('oneShot and disableAutoCompaction streams never compact', async () => {
    agentScript(4, () => ({ steps: [{ text: SUMMARY }] }));
    const registry = (await import('../../src/tools/index.js')).createDefaultRegistry();
    const events = await collect((await client(12_000)).streamChat(start(), registry, { disableAutoCompaction: true }));
    expect(events.some((e) => e.type.startsWith('auto_compaction'))).toBe(false);
    expect(compactionRequests()).toHaveLength(0);
  });
});

describe('output room', () => {
  it('caps max_tokens per request so prompt + output fit the window', async () => {
    agentScript(2, () => ({ steps: [{ text: SUMMARY }] }));
    const adapter = await session.adapter('test-model');
    const { makeClient: mk } = await import('../loop/loop-harness.js');
    const c = mk(adapter, { window: 12_000, cwd: session.cwd, auto: false });
    const req = { ...start(), maxOutputTokens: 8000 };
    await collect(c.streamChat(req, (await import('../../src/tools/index.js')).createDefaultRegistry()));
    const maxTokens = session.fake.requests.map((r) => r.body.max_tokens as number);
    expect(maxTokens[0]).toBe(8000); // a small first prompt leaves the configured limit
    expect(maxTokens[2]).toBeLessThan(maxTokens[1]); // each big tool result shrinks the room
    expect(maxTokens[2]).toBeLessThan(8000);
    for (const r of session.fake.requests) {
      const promptEstimate = JSON.stringify(r.body).length / 4; // the fake's own rough count
      expect(r.body.max_tokens).toBeGreaterThanOrEqual(1024);
      expect(promptEstimate * 0.6 + r.body.max_tokens).toBeLessThanOrEqual(12_000);
    }
  });
});
