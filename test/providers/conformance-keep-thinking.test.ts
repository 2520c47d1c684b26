/**
 * Claude models that drop earlier turns' thinking by default are asked to keep it (the
 * `clear_thinking_20251015` edit with `keep: "all"`, beta `context-management-2025-06-27`), in
 * every request of the session, the compaction fork included, so the prompt cache holds; no other
 * model, and no session without thinking, carries it. The fakes refuse the field without its beta
 * and in any undocumented shape, as the services do.
 */
import { describe, expect, it } from 'vitest';
import { systemMessage, userMessage } from '../../src/core/message.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import type { RecordedRequest } from '../fakes/script.js';
import { COMPACTION_MARKER, makeClient, request } from '../loop/loop-harness.js';
import { collect } from '../kit/events.js';
import { PROVIDER_CASES } from './conformance-cases.js';
import { seedNotes, useProviderRig } from './provider-rig.js';

const BETA = 'context-management-2025-06-27';
const KEEP_ALL = { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };
const isCompaction = (req: RecordedRequest) => JSON.stringify(req.body).includes(COMPACTION_MARKER);

/** Per Claude-serving provider: its model ids and where a request carries the edit and its beta. */
const WIRES: Record<
  string,
  { drops: string; keeps: string[]; window: number; thinking: (r: RecordedRequest) => unknown; edit: (r: RecordedRequest) => unknown; betas: (r: RecordedRequest) => unknown }
> = {
  anthropic: {
    // The window where this session's compaction summarises in a fork of the conversation.
    window: 16_000,
    thinking: (r) => r.body.thinking,
    drops: 'claude-sonnet-4-5',
    keeps: ['claude-sonnet-4-6', 'claude-opus-4-6'],
    edit: (r) => r.body.context_management,
    betas: (r) => r.headers['anthropic-beta'],
  },
  bedrock: {
    window: 12_000,
    thinking: (r) => r.body.additionalModelRequestFields?.thinking,
    drops: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    keeps: ['anthropic.claude-sonnet-4-6', 'anthropic.claude-opus-4-6-v1'],
    edit: (r) => r.body.additionalModelRequestFields?.context_management,
    betas: (r) => r.body.additionalModelRequestFields?.anthropic_beta,
  },
};

describe.each(PROVIDER_CASES.filter((c) => c.name in WIRES))('$name: earlier thinking kept where the model would drop it', (pc) => {
  const rig = useProviderRig(pc, seedNotes(false));
  const wire = WIRES[pc.name];
  const expectedBetas = pc.name === 'anthropic' ? BETA : [BETA];

  /** A reader session (tool steps, each reply thinking first) in a small window, so it compacts. */
  const session = async (model: string, thinkingBudget: number | undefined) => {
    let turns = 0;
    rig.fake.setResponder((req) => {
      if (isCompaction(req)) return { steps: [{ thinking: 'What mattered.' }, { text: '## Goal\nRead the notes.' }] };
      turns++;
      if (turns > 4) return { steps: [{ thinking: 'Done.' }, { text: 'All read.' }] };
      return { steps: [{ thinking: `File ${turns} next.` }, { toolCall: { id: `r_${turns}`, name: 'read_file', args: { path: `notes-${turns}.txt` } } }] };
    });
    const client = makeClient(await pc.adapter(rig.fake, rig.home), { window: wire.window, cwd: rig.cwd });
    const start = { ...request([systemMessage('You are a conformance test agent.'), userMessage('Go.')], model), maxOutputTokens: 8000, thinkingBudget };
    const events = await collect(client.streamChat(start, createDefaultRegistry(), {}));
    return { events, requests: rig.fake.requests };
  };

  it('a model that drops by default, thinking on: the keep-all edit and its beta in every request, the summary fork too', async () => {
    const { events, requests } = await session(wire.drops, 2048);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const forks = requests.filter((r) => isCompaction(r) && wire.thinking(r));
    expect(forks.length).toBeGreaterThan(0);
    expect(requests.filter((r) => !isCompaction(r)).length).toBeGreaterThan(3);
    for (const r of requests) {
      expect(wire.edit(r)).toEqual(KEEP_ALL);
      expect(wire.betas(r)).toEqual(expectedBetas);
    }
  });

  it.each(wire.keeps)('%s keeps earlier thinking itself: no edit, no beta', async (model) => {
    const { events, requests } = await session(model, 2048);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(requests.some(isCompaction)).toBe(true);
    for (const r of requests) {
      expect(wire.edit(r)).toBeUndefined();
      expect(wire.betas(r)).toBeUndefined();
    }
  });

  it('thinking off: no edit, no beta', async () => {
    const { events, requests } = await session(wire.drops, undefined);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    for (const r of requests) {
      expect(wire.edit(r)).toBeUndefined();
      expect(wire.betas(r)).toBeUndefined();
    }
  });
});

describe('the fakes check context_management as the services do', () => {
  const anthropic = PROVIDER_CASES.find((c) => c.name === 'anthropic')!;
  const rig = useProviderRig(anthropic);
  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${rig.fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k', ...headers }, body: JSON.stringify(body) });
  const base = { model: 'claude-sonnet-4-5', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Hi.' }] };

  it('refuses the field without the beta header, and an unknown edit or keep with it', async () => {
    const without = await post({ ...base, context_management: KEEP_ALL });
    expect(without.status).toBe(400);
    expect(await without.text()).toContain('context_management: Extra inputs are not permitted');
    const unknown = await post({ ...base, context_management: { edits: [{ type: 'clear_thinking_20990101', keep: 'all' }] } }, { 'anthropic-beta': BETA });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("Input tag 'clear_thinking_20990101'");
    const badKeep = await post({ ...base, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'everything' }] } }, { 'anthropic-beta': BETA });
    expect(badKeep.status).toBe(400);
    const noThinking = await post({ ...base, thinking: undefined, context_management: KEEP_ALL }, { 'anthropic-beta': BETA });
    expect(noThinking.status).toBe(400);
  });

  it('accepts the documented keep-all edit with the beta header', async () => {
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const res = await post({ ...base, context_management: KEEP_ALL }, { 'anthropic-beta': `other-beta-2025-01-01,${BETA}` });
    expect(res.status).toBe(200);
  });
});

describe('the Bedrock fake checks context_management as the service does', () => {
  const bedrock = PROVIDER_CASES.find((c) => c.name === 'bedrock')!;
  const rig = useProviderRig(bedrock);
  const post = (fields: object) =>
    fetch(`${rig.fake.url}/model/anthropic.claude-sonnet-4-5-20250929-v1:0/converse-stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: [{ text: 'Hi.' }] }],
        inferenceConfig: { maxTokens: 4000 },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 }, ...fields },
      }),
    });

  it('refuses the field without anthropic_beta, accepts it with the beta', async () => {
    const without = await post({ context_management: KEEP_ALL });
    expect(without.status).toBe(400);
    expect(await without.text()).toContain('context_management: Extra inputs are not permitted');
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const withBeta = await post({ anthropic_beta: [BETA], context_management: KEEP_ALL });
    expect(withBeta.status).toBe(200);
  });
});
