import { describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { SessionController, type TranscriptSink, type TurnRecord } from '../../src/agent/session-controller.js';
import type { StreamEvent } from '../../src/core/events.js';
import { systemMessage, userMessage } from '../../src/core/message.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import type { FakeReply, RecordedRequest } from '../fakes/script.js';
import { COMPACTION_MARKER, makeClient, request } from '../loop/loop-harness.js';
import { collect, textOf } from '../kit/events.js';
import { PROVIDER_CASES, stripCacheMarkers, type ProviderCase } from './conformance-cases.js';
import { useProviderRig, seedNotes } from './provider-rig.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { createOpenAIChatAdapter } from '../../src/providers/openai-chat.js';

const isCompaction = (req: RecordedRequest) => JSON.stringify(req.body).includes(COMPACTION_MARKER);
const SUMMARY = '## Goal\nRead the notes.\n## Accomplished\nnotes-1 read.';

function expectParentPlusOneUserMessage(pc: ProviderCase, parentBody: any, nestedBody: any): void {
  const p = stripCacheMarkers(pc.parts(parentBody));
  const n = stripCacheMarkers(pc.parts(nestedBody));
  expect(n.system).toEqual(p.system);
  expect(n.tools).toEqual(p.tools);
  if (pc.userTurns === 'separate') {
    expect(n.messages).toHaveLength(p.messages.length + 1);
    expect(n.messages.slice(0, -1)).toEqual(p.messages);
  } else {
    // The instruction joins the final user turn as one more block, after its tool results.
    expect(n.messages).toHaveLength(p.messages.length);
    expect(n.messages.slice(0, -1)).toEqual(p.messages.slice(0, -1));
    const pl = p.messages.at(-1);
    const nl = n.messages.at(-1);
    expect(nl.content).toHaveLength(pl.content.length + 1);
    expect(nl.content.slice(0, -1)).toEqual(pl.content);
  }
  expect(JSON.stringify(n.messages.at(-1))).toContain(COMPACTION_MARKER);
}

/** Each service's details of a refusal; fakes send the ones their service has. */
const REFUSAL_DETAILS = { category: 'cyber', explanation: 'The request could enable malware development.', blocked: ['HARM_CATEGORY_DANGEROUS_CONTENT'] };

/** What each service says of why it declined, as Keen reports it. */
const REFUSAL_EXPLANATIONS: Record<string, string> = {
  anthropic: 'The request could enable malware development.',
  openai: 'the content filter stopped the answer',
  'openai-responses': 'the content filter stopped the answer',
  codex: 'the content filter stopped the answer',
  bedrock: 'a Bedrock guardrail intervened',
  genkit: 'Gemini finish reason SAFETY (HARM_CATEGORY_DANGEROUS_CONTENT)',
};

describe.each(PROVIDER_CASES)('$name conformance', (pc) => {
  const rig = useProviderRig(pc, seedNotes(true));

  const client = async (window = 200_000) => makeClient(await pc.adapter(rig.fake, rig.home), { window, cwd: rig.cwd });
  const start = () => request([systemMessage('You are a conformance test agent.'), userMessage('Go.')]);
  const run = async (window?: number, onEvent?: (ev: StreamEvent) => void, signal?: AbortSignal) =>
    collect((await client(window)).streamChat(start(), createDefaultRegistry(), { signal }), onEvent);

  it('streams text', async () => {
    rig.fake.enqueue({ steps: [{ text: 'Hello, ' }, { text: 'world.' }] });
    const events = await run();
    expect(textOf(events)).toBe('Hello, world.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('a declined answer ends with stop reason refusal, what the model said and the explanation', async () => {
    rig.fake.enqueue({ steps: [{ text: 'I will not ' }, { text: 'write that.' }], stopReason: 'refusal', refusal: REFUSAL_DETAILS });
    const events = await run();
    expect(textOf(events)).toBe('I will not write that.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'refusal', explanation: REFUSAL_EXPLANATIONS[pc.name] });
    expect(rig.fake.requests).toHaveLength(1);
  });

  it('a declined turn never runs its tool calls: each gets a result saying so', async () => {
    rig.fake.enqueue({ steps: [{ toolCall: { id: 'call_r', name: 'read_file', args: { path: 'note.txt' } } }], stopReason: 'refusal' });
    const events = await run();
    expect(events.some((e) => e.type === 'tool_call_started')).toBe(false);
    const results = events.filter((e) => e.type === 'message' && e.message.role === 'tool') as Extract<StreamEvent, { type: 'message' }>[];
    expect(results.map((r) => r.message)).toMatchObject([{ role: 'tool', tool_call_id: 'call_r', is_error: true, content: 'not run: the model declined this turn' }]);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'refusal' });
  });

  it('runs a multi-step tool loop', async () => {
    rig.fake.enqueue(
      { steps: [{ text: 'Reading.' }, { toolCall: { id: 'call_1', name: 'read_file', args: { path: 'note.txt' } } }] },
      { steps: [{ toolCall: { id: 'call_2', name: 'list_dir', args: { path: '.' } } }] },
      { steps: [{ text: 'It is 42.' }] },
    );
    const events = await run();
    const results = events.filter((e) => e.type === 'tool_call_finished') as Extract<StreamEvent, { type: 'tool_call_finished' }>[];
    expect(results.map((r) => r.call.name)).toEqual(['read_file', 'list_dir']);
    expect(results[0].result.content).toContain('the answer is 42');
    expect(JSON.stringify(rig.fake.requests[1].body)).toContain('the answer is 42');
    expect(JSON.stringify(rig.fake.requests[2].body)).toContain('note.txt');
    expect(textOf(events)).toContain('It is 42.');
    expect(rig.fake.requests).toHaveLength(3);
  });

  it('returns a bad tool argument to the model as a tool error and goes on', async () => {
    rig.fake.enqueue({ steps: [{ toolCall: { id: 'bad_1', name: 'read_file', args: { path: 42 } } }] }, { steps: [{ text: 'Sorry.' }] });
    const events = await run();
    const finished = events.find((e) => e.type === 'tool_call_finished') as any;
    expect(finished.result.is_error).toBe(true);
    expect(finished.result.content).toMatch(/Invalid arguments for read_file/);
    expect(JSON.stringify(rig.fake.requests[1].body)).toContain('Invalid arguments for read_file');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('reports usage', async () => {
    rig.fake.enqueue({ steps: [{ text: 'ok' }], usage: { input: 120, output: 7, cacheRead: 30 } });
    const events = await run();
    const usage = events
      .filter((e) => e.type === 'usage')
      .reduce((a, e: any) => ({ input: a.input + e.usage.input, output: a.output + e.usage.output, cache_read: a.cache_read + e.usage.cache_read }), {
        input: 0,
        output: 0,
        cache_read: 0,
      });
    expect(usage).toEqual({ input: 120, output: 7, cache_read: 30 });
  });

  it('counts reasoning tokens as output, as the service bills them', async () => {
    rig.fake.enqueue({ steps: [{ thinking: 'Hmm.' }, { text: 'ok' }], usage: { input: 120, output: 253, reasoning: 227 } });
    const events = await run();
    const outputs = events.filter((e) => e.type === 'usage').map((e: any) => e.usage.output);
    expect(outputs).toEqual([253]);
  });

  it('cancels mid-stream without waiting for the server', async () => {
    // The server stalls until the client hangs up: the stream ends at all only if the abort ends it.
    rig.fake.enqueue({ steps: [{ text: 'partial' }, { hold: true }, { text: ' never' }] });
    const abort = new AbortController();
    const events = await run(undefined, (ev) => ev.type === 'text_delta' && abort.abort(), abort.signal);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'cancelled' } });
    expect(textOf(events)).not.toContain('never');
  });

  it('retries a 429 and then succeeds', async () => {
    rig.fake.enqueue({ error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'after retry' }] });
    const events = await run();
    expect(textOf(events)).toBe('after retry');
    expect(rig.fake.requests.length).toBe(2);
  });

  it('reports a stream cut mid-way as a clear network error', async () => {
    rig.fake.enqueue({ steps: [{ text: 'half an ans' }, { cut: true }] });
    const events = await run();
    const last = events.at(-1) as any;
    expect(last).toMatchObject({ type: 'error', error: { kind: 'network' } });
    expect(last.error.message).not.toMatch(/\n/);
    expect(last.error.message.length).toBeGreaterThan(10);
  });

  it('maps a context-length error to context_window and never compacts', async () => {
    rig.fake.enqueue(
      { steps: [{ toolCall: { id: 'c1', name: 'read_file', args: { path: 'note.txt' } } }] },
      { error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } },
    );
    const events = await run();
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'context_window' } });
    expect(events.some((e) => e.type.startsWith('auto_compaction'))).toBe(false);
  });

  function readerAgent(reads: number, compaction: () => FakeReply) {
    let turns = 0;
    rig.fake.setResponder((req) => {
      if (isCompaction(req)) return compaction();
      turns++;
      if (turns > reads) return { steps: [{ text: 'All read.' }] };
      return { steps: [{ text: `Reading ${turns}.` }, { toolCall: { id: `r_${turns}`, name: 'read_file', args: { path: `notes-${turns}.txt` } } }] };
    });
  }

  it('automatic compaction: the nested request is the parent request plus one final user message', async () => {
    readerAgent(4, () => ({ steps: [{ text: '' }] })); // an empty summary fails, so the parent goes on unchanged
    const events = await run(12_000);
    expect(events.some((e) => e.type === 'auto_compaction_failed')).toBe(true);
    const nested = rig.fake.requests.find(isCompaction)!;
    const parent = rig.fake.requests[rig.fake.requests.indexOf(nested) + 1];
    expect(isCompaction(parent)).toBe(false);
    expectParentPlusOneUserMessage(pc, parent.body, nested.body);
  });

  it('automatic compaction: the replacement is what the next request carries', async () => {
    readerAgent(4, () => ({ steps: [{ text: SUMMARY }] }));
    const events = await run(12_000);
    const applied = events.find((e) => e.type === 'auto_compaction_applied') as any;
    expect(applied).toBeDefined();
    const nested = rig.fake.requests.find(isCompaction)!;
    const next = rig.fake.requests[rig.fake.requests.indexOf(nested) + 1];
    const parts = stripCacheMarkers(pc.parts(next.body));
    expect(parts.system).toEqual(stripCacheMarkers(pc.parts(nested.body)).system);
    const wire = JSON.stringify(parts.messages);
    expect(wire).toContain('<compacted_context>');
    expect(wire).toContain('notes-1 read.');
    expect(wire).not.toContain('note 5 in file 1'); // old tool output is gone
    expect(textOf(events)).not.toContain('notes-1 read.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('manual compaction: same system prompt and tools, guidance as the final user message, then one summary message', async () => {
    const records: TurnRecord[] = [];
    const sink: TranscriptSink = { append: async (r) => records.push(r), appendBatch: async (rs) => records.push(...rs), redactText: (t) => t };
    const appState = new AppState({
      client: await client(),
      registry: createDefaultRegistry(),
      model: 'm',
      maxOutputTokens: 1000,
      sessionId: 's',
      buildSystemPrompt: () => 'You are a conformance test agent.',
    });
    const c = new SessionController(appState, sink);
    rig.fake.enqueue({ steps: [{ text: 'Hi.' }] }, { steps: [{ text: SUMMARY }] }, { steps: [{ text: 'Next.' }] });
    await collect(c.chat('Hello') as AsyncIterable<StreamEvent>);
    await collect(c.compact('keep the greeting') as AsyncIterable<StreamEvent>);
    const normal = stripCacheMarkers(pc.parts(rig.fake.requests[0].body));
    const compact = stripCacheMarkers(pc.parts(rig.fake.requests[1].body));
    expect(compact.system).toEqual(normal.system);
    expect(compact.tools).toEqual(normal.tools);
    expect(JSON.stringify(compact.messages.at(-1))).toContain('keep the greeting');
    expect(appState.messages).toEqual([{ role: 'user', content: `<compacted_context>\n${SUMMARY}\n</compacted_context>`, summary_level: 1 }]);
    expect(records.at(-1)).toMatchObject({ kind: 'compaction_applied', mode: 'manual' });
    await collect(c.chat('Continue') as AsyncIterable<StreamEvent>);
    const after = stripCacheMarkers(pc.parts(rig.fake.requests[2].body));
    expect(JSON.stringify(after.messages)).toContain(SUMMARY.split('\n')[1]);
    expect(JSON.stringify(after.messages)).not.toContain('Hi.');
  });
});

/** Services whose replies carry the model's refusal in a field of its own. */
const REFUSAL_FIELD = new Set(['openai', 'openai-responses', 'codex']);

describe.each(PROVIDER_CASES.filter((pc) => REFUSAL_FIELD.has(pc.name)))('$name refusal field', (pc) => {
  const rig = useProviderRig(pc, seedNotes(false));

  it('the refusal text is the answer, and the turn stops for refusal', async () => {
    rig.fake.enqueue({ steps: [{ refusal: "I'm sorry, I can't help with that." }] });
    const client = makeClient(await pc.adapter(rig.fake, rig.home), { window: 200_000, cwd: rig.cwd });
    const events = await collect(client.streamChat(request([systemMessage('S'), userMessage('Go.')]), createDefaultRegistry(), {}));
    expect(textOf(events)).toBe("I'm sorry, I can't help with that.");
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'refusal' });
    const reply = events.find((e) => e.type === 'message') as Extract<StreamEvent, { type: 'message' }>;
    expect(reply.message).toMatchObject({ role: 'assistant', content: "I'm sorry, I can't help with that." });
  });
});

describe('Chat Completions whole-message refusal', () => {
  const openai = PROVIDER_CASES.find((c) => c.name === 'openai')!;
  const rig = useProviderRig(openai, seedNotes(false));

  it('a server sending the whole message: choice.message.refusal is the answer, and the turn stops for refusal', async () => {
    rig.fake.enqueue({ steps: [{ refusal: 'I cannot assist with that request.', whole: true }] });
    const client = makeClient(await openai.adapter(rig.fake, rig.home), { window: 200_000, cwd: rig.cwd });
    const events = await collect(client.streamChat(request([systemMessage('S'), userMessage('Go.')]), createDefaultRegistry(), {}));
    expect(textOf(events)).toBe('I cannot assist with that request.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'refusal' });
  });
});

describe('Bedrock content_filtered', () => {
  const bedrock = PROVIDER_CASES.find((c) => c.name === 'bedrock')!;
  const rig = useProviderRig(bedrock, seedNotes(false));

  it('stopReason content_filtered is a refusal, explained as filtered content', async () => {
    rig.fake.enqueue({ steps: [{ text: 'Partial ' }], stopReason: 'refusal', refusal: { native: 'content_filtered' } });
    const client = makeClient(await bedrock.adapter(rig.fake, rig.home), { window: 200_000, cwd: rig.cwd });
    const events = await collect(client.streamChat(request([systemMessage('S'), userMessage('Go.')]), createDefaultRegistry(), {}));
    expect(textOf(events)).toBe('Partial ');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'refusal', explanation: 'Bedrock filtered the content' });
  });
});

/** One family of Chat Completions servers: the openai case against a fake speaking its usage dialect. */
describe('xAI (Chat Completions) conformance', () => {
  const openai = PROVIDER_CASES.find((c) => c.name === 'openai')!;
  const rig = useProviderRig({ ...openai, start: () => startOpenAIChatFake({ family: 'xai' }) });

  it('counts the reasoning tokens left out of completion_tokens as output', async () => {
    rig.fake.enqueue({ steps: [{ thinking: 'Hmm.' }, { text: 'ok' }], usage: { input: 120, output: 253, reasoning: 227 } });
    const client = makeClient(await openai.adapter(rig.fake, rig.home), { window: 200_000, cwd: rig.cwd });
    const events = await collect(client.streamChat(request([systemMessage('S'), userMessage('Go.')]), createDefaultRegistry(), {}));
    expect(events.filter((e) => e.type === 'usage').map((e: any) => e.usage)).toEqual([{ input: 120, output: 253, cache_read: 0, cache_write: 0 }]);
  });
});

describe('OpenAI (Chat Completions) parameters', () => {
  const openai = PROVIDER_CASES.find((c) => c.name === 'openai')!;
  const rig = useProviderRig(openai);
  const ask = async (model: string, maxTokensField?: 'max_tokens' | 'max_completion_tokens') => {
    const adapter = await createOpenAIChatAdapter({ maxRetries: 0, home: rig.home, env: {}, model, apiKey: 'k', baseURL: `${rig.fake.url}/v1`, maxTokensField });
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const events = await collect(makeClient(adapter, { window: 200_000, cwd: rig.cwd }).streamChat(request([userMessage('Go.')], model), createDefaultRegistry(), {}));
    return { events, body: rig.fake.requests.at(-1)!.body as any };
  };

  it.each(['o3-mini', 'gpt-5', 'openai/gpt-5-mini'])('%s gets max_completion_tokens, also through a compatible server', async (model) => {
    const { events, body } = await ask(model);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(body.max_tokens).toBeUndefined();
    expect(body.max_completion_tokens).toBeGreaterThan(0);
  });

  it('a compatible server keeps max_tokens, and config picks the field', async () => {
    expect((await ask('llama3')).body).toMatchObject({ max_tokens: expect.any(Number) });
    const configured = (await ask('llama3', 'max_completion_tokens')).body;
    expect(configured.max_tokens).toBeUndefined();
    expect(configured.max_completion_tokens).toBeGreaterThan(0);
  });
});

describe.each(PROVIDER_CASES.filter((c) => c.name === 'openai-responses' || c.name === 'codex'))('$name: one session, one cache', (pc) => {
  const rig = useProviderRig(pc, seedNotes(true));

  it('the session id is the cache key, so the second request reads the first from the cache', async () => {
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'note.txt' } } }] }, { steps: [{ text: 'Read.' }] });
    const client = makeClient(await pc.adapter(rig.fake, rig.home), { window: 200_000, cwd: rig.cwd });
    const req = { ...request([systemMessage('You are a conformance test agent.'), userMessage('Go.')]), sessionId: 'sess-cache-1' };
    const events = await collect(client.streamChat(req, createDefaultRegistry(), { sessionId: 'sess-cache-1' }));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const reads = events.filter((e) => e.type === 'usage').map((e: any) => e.usage.cache_read);
    expect(reads).toHaveLength(2);
    expect(reads[0]).toBe(0);
    expect(reads[1]).toBeGreaterThan(0);
    expect(rig.fake.requests.map((r) => r.body.prompt_cache_key)).toEqual(['sess-cache-1', 'sess-cache-1']);
    if (pc.name === 'codex') expect(rig.fake.requests.map((r) => r.headers.session_id)).toEqual(['sess-cache-1', 'sess-cache-1']);
  });
});

/** Per Claude-serving provider: a model that only takes adaptive thinking, and one that only takes a budget. */
const THINKING_MODELS: Record<string, { adaptive: string; budget: string; thinking: (body: any) => unknown; effort: (body: any) => unknown }> = {
  anthropic: { adaptive: 'claude-opus-5-5', budget: 'claude-sonnet-4-5', thinking: (b) => b.thinking, effort: (b) => b.output_config?.effort },
  bedrock: {
    adaptive: 'anthropic.claude-opus-4-7',
    budget: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    thinking: (b) => b.additionalModelRequestFields?.thinking,
    effort: (b) => b.additionalModelRequestFields?.output_config?.effort,
  },
};

describe.each(PROVIDER_CASES.filter((c) => c.name in THINKING_MODELS))('$name: the thinking form each Claude model takes', (pc) => {
  const rig = useProviderRig(pc);
  const models = THINKING_MODELS[pc.name];
  const ask = async (model: string) => {
    rig.fake.enqueue({ steps: [{ thinking: 'Hmm.' }, { text: 'ok' }] });
    const client = makeClient(await pc.adapter(rig.fake, rig.home), { window: 200_000, cwd: rig.cwd });
    const events = await collect(client.streamChat({ ...request([userMessage('Go.')], model), maxOutputTokens: 8000, thinkingBudget: 2048 }, createDefaultRegistry(), {}));
    return { events, body: rig.fake.requests.at(-1)!.body as any };
  };

  it('Claude 4.6 and later: adaptive thinking, its effort from the budget', async () => {
    const { events, body } = await ask(models.adaptive);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(models.thinking(body)).toEqual({ type: 'adaptive' });
    expect(models.effort(body)).toBe('low');
  });

  it('earlier models: the budget form', async () => {
    const { events, body } = await ask(models.budget);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(models.thinking(body)).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });
});
