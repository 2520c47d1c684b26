/**
 * Compaction as an editor sees it: `/compact` shown as it runs like an automatic one
 * (`compaction_update` with its summary where the client takes it, thought lines elsewhere), and
 * a compaction cancelled or failed, automatic or manual. The ACP SDK's client side drives a
 * spawned `bin/keen.js acp` against the Anthropic wire fake.
 */
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { allText, isCompactionRequest } from '../repl/fake-requests.js';
import type { FakeReply, RecordedRequest } from '../fakes/script.js';
import { tempWorkspace } from '../kit/temp-dir.js';
import { type Editor, editorSuite, prompt, texts } from './editor-client.js';

const suite = editorSuite();
const CAPS: acp.ClientCapabilities = { session: { compaction: {} } };
const SUMMARY = '## Goal\nRead every log.\n## Facts\ncode_42 is ok.';

/** A workspace whose four logs overflow a small model's window: reading them all compacts. */
function logsWorkspace() {
  const tiny = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
  const files: Record<string, string> = { '.keen/config.json': JSON.stringify(tiny) };
  for (let n = 1; n <= 4; n++) files[`log-${n}.txt`] = Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');
  return tempWorkspace(files);
}

/** Answers the summary request with `summary`, other requests read the logs one by one, then finish. */
function readLogs(summary: FakeReply): (req: RecordedRequest) => FakeReply {
  let turns = 0;
  return (req) => {
    if (isCompactionRequest(req)) return summary;
    turns++;
    if (turns > 4) return { steps: [{ text: 'Finished.' }] };
    return { steps: [{ toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
  };
}

async function session(e: Editor, cwd: string): Promise<string> {
  return (await e.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
}

const compactionUpdates = (e: Editor) => e.updates.filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'compaction_update' }> => u.sessionUpdate === 'compaction_update');

/** Cancel the prompt as soon as a compaction starts. */
function cancelOnCompaction(e: Editor, sessionId: string): void {
  e.onUpdate = (u) => {
    const started =
      (u.sessionUpdate === 'compaction_update' && u.status === 'in_progress') ||
      (u.sessionUpdate === 'agent_thought_chunk' && texts([u], u.sessionUpdate).startsWith('Compacting'));
    if (started) void e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  };
}

/** A session with one exchange in its history, ready for `/compact`. */
async function withHistory(e: Editor, cwd: string): Promise<string> {
  const sessionId = await session(e, cwd);
  suite.fake.enqueue({ steps: [{ toolCall: { id: 'r1', name: 'read_file', args: { path: 'log-1.txt' } } }] }, { steps: [{ text: 'Log 1 is fine.' }] });
  await prompt(e, sessionId, 'read log 1');
  e.updates.length = 0;
  return sessionId;
}

describe('keen acp: /compact', () => {
  it('streams its summary into a compaction_update card, and the next request carries the summary', async () => {
    const ws = logsWorkspace();
    const e = await suite.editor(ws, { capabilities: CAPS });
    const sessionId = await withHistory(e, ws.cwd);
    suite.fake.enqueue({ steps: [{ text: SUMMARY }] });
    expect((await prompt(e, sessionId, '/compact keep the codes')).stopReason).toBe('end_turn');
    const updates = compactionUpdates(e);
    expect(updates.map((u) => u.status)).toEqual(['in_progress', 'completed']);
    expect(updates[1]).toMatchObject({ compactionId: updates[0]?.compactionId, summary: [{ type: 'text', text: SUMMARY }] });
    const chunks = e.updates.filter((u) => u.sessionUpdate === 'compaction_summary_chunk');
    expect(chunks.map((c) => ('content' in c && c.content.type === 'text' ? c.content.text : '')).join('')).toBe(SUMMARY);
    expect(texts(e.updates, 'agent_message_chunk')).not.toContain('code_42');

    suite.fake.enqueue({ steps: [{ text: 'ok' }] });
    const from = suite.fake.requests.length;
    await prompt(e, sessionId, 'go on');
    expect(allText(suite.fake.requests[from])).toContain('code_42 is ok.');
  });

  it('without the capability: the summary as the answer between the same thought lines as an automatic one', async () => {
    const ws = logsWorkspace();
    const e = await suite.editor(ws);
    const sessionId = await withHistory(e, ws.cwd);
    suite.fake.enqueue({ steps: [{ text: SUMMARY }] });
    expect((await prompt(e, sessionId, '/compact')).stopReason).toBe('end_turn');
    expect(compactionUpdates(e)).toEqual([]);
    expect(texts(e.updates, 'agent_thought_chunk')).toMatch(/^Compacting the conversation to free context…\nContext compacted: ~\d+ → ~\d+ tokens\.\n$/);
    expect(texts(e.updates, 'agent_message_chunk')).toBe(SUMMARY);
  });

  it('cancelled while it summarises: a cancelled card, stopReason cancelled, history unchanged', async () => {
    const ws = logsWorkspace();
    const e = await suite.editor(ws, { capabilities: CAPS });
    const sessionId = await withHistory(e, ws.cwd);
    cancelOnCompaction(e, sessionId);
    suite.fake.enqueue({ steps: [{ delayMs: 30_000 }, { text: SUMMARY }] });
    expect((await prompt(e, sessionId, '/compact')).stopReason).toBe('cancelled');
    expect(compactionUpdates(e).map((u) => u.status)).toEqual(['in_progress', 'cancelled']);
    e.onUpdate = undefined;
    suite.fake.enqueue({ steps: [{ text: 'ok' }] });
    const from = suite.fake.requests.length;
    await prompt(e, sessionId, 'go on');
    expect(allText(suite.fake.requests[from])).toContain('entry 149 of log 1');
  });

  it('a summary request the service refuses: a failed card naming why, and the prompt fails with the line', async () => {
    const ws = logsWorkspace();
    const e = await suite.editor(ws, { capabilities: CAPS });
    const sessionId = await withHistory(e, ws.cwd);
    suite.fake.setResponder(() => ({ error: { status: 400, message: 'summary refused by the fake' } }));
    try {
      await expect(prompt(e, sessionId, '/compact')).rejects.toThrow(/summary refused by the fake[^.]*\); history unchanged/);
    } finally {
      suite.fake.setResponder(undefined);
    }
    const updates = compactionUpdates(e);
    expect(updates.map((u) => u.status)).toEqual(['in_progress', 'failed']);
    expect(updates[1]?.error).toMatch(/summary refused by the fake/);
  });
});

describe('keen acp: an automatic compaction that does not apply', () => {
  it('cancelled during its summary request: a cancelled card, then stopReason cancelled', async () => {
    const ws = logsWorkspace();
    const e = await suite.editor(ws, { capabilities: CAPS });
    const sessionId = await session(e, ws.cwd);
    cancelOnCompaction(e, sessionId);
    suite.fake.setResponder(readLogs({ steps: [{ delayMs: 30_000 }, { text: SUMMARY }] }));
    try {
      expect((await prompt(e, sessionId, 'Read every log.')).stopReason).toBe('cancelled');
    } finally {
      suite.fake.setResponder(undefined);
    }
    expect(compactionUpdates(e).map((u) => u.status)).toEqual(['in_progress', 'cancelled']);
    expect(texts(e.updates, 'agent_message_chunk')).not.toContain('Finished.');
  });

  it('failed: a failed card naming why, and the turn goes on uncompacted', async () => {
    const ws = logsWorkspace();
    const e = await suite.editor(ws, { capabilities: CAPS });
    const sessionId = await session(e, ws.cwd);
    suite.fake.setResponder(readLogs({ error: { status: 400, message: 'summary refused by the fake' } }));
    try {
      expect((await prompt(e, sessionId, 'Read every log.')).stopReason).toBe('end_turn');
    } finally {
      suite.fake.setResponder(undefined);
    }
    const updates = compactionUpdates(e);
    expect(updates[0]?.status).toBe('in_progress');
    expect(updates.filter((u) => u.status === 'failed').length).toBeGreaterThan(0);
    expect(updates.find((u) => u.status === 'failed')?.error).toMatch(/Compaction failed \(.*summary refused by the fake.*\); the conversation is unchanged\./);
    expect(updates.some((u) => u.status === 'completed')).toBe(false);
    expect(texts(e.updates, 'agent_message_chunk')).toContain('Finished.');
  });
});
