import { describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { SessionController, type TranscriptSink, type TurnRecord } from '../../src/agent/session-controller.js';
import type { StreamEvent } from '../../src/core/events.js';
import type { Message } from '../../src/core/message.js';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import type { FakeReply, RecordedRequest } from '../fakes/script.js';
import { COMPACTION_MARKER, makeClient } from '../loop/loop-harness.js';
import { collect } from '../kit/events.js';
import { PROVIDER_CASES, stripCacheMarkers } from './conformance-cases.js';
import { useProviderRig, seedNotes } from './provider-rig.js';

const SYSTEM = 'You are a conformance test agent.';
const isCompaction = (req: RecordedRequest) => JSON.stringify(req.body).includes(COMPACTION_MARKER);

/** Reasoning first, a tool call, then text after the call; then text split over chunks; then the answer. */
const TOOL_LOOP: FakeReply[] = [
  { steps: [{ thinking: 'The note first.\n\nThen the folder.' }, { toolCall: { name: 'read_file', args: { path: 'note.txt' } } }, { text: 'Reading the note.' }] },
  {
    steps: [
      { thinking: 'Now the folder.' },
      { redacted: 'cmVkYWN0ZWQtMQ==' },
      { text: 'Listing ' },
      { text: 'the folder.' },
      { toolCall: { name: 'list_dir', args: { path: '.' } } },
    ],
  },
  { steps: [{ thinking: 'I know enough.' }, { text: 'It is ' }, { text: '42.' }] },
];

/**
 * The first reply ([reasoning, tool call, text]) as the next request carries it, one kind per
 * native piece — the order the model produced. Chat Completions has no order within a message:
 * there, the reasoning must ride along with the tool call.
 */
const FIRST_REPLY_ORDER: Record<string, { pieces: (body: any) => string[]; expected: string[] }> = {
  openai: { pieces: (b) => ['reasoning_content', 'tool_calls', 'content'].filter((k) => b.messages[2][k]), expected: ['reasoning_content', 'tool_calls', 'content'] },
  anthropic: { pieces: (b) => b.messages[1].content.map((x: any) => x.type), expected: ['thinking', 'tool_use', 'text'] },
  bedrock: { pieces: (b) => b.messages[1].content.map((x: any) => Object.keys(x)[0]), expected: ['reasoningContent', 'toolUse', 'text'] },
  'openai-responses': { pieces: (b) => b.input.slice(1, 4).map((x: any) => x.type), expected: ['reasoning', 'function_call', 'message'] },
  codex: { pieces: (b) => b.input.slice(1, 4).map((x: any) => x.type), expected: ['reasoning', 'function_call', 'message'] },
  genkit: {
    pieces: (b) => b.contents[1].parts.map((x: any) => (x.thought ? 'thought' : x.functionCall ? (x.thoughtSignature ? 'functionCall+signature' : 'functionCall') : 'text')),
    expected: ['thought', 'functionCall+signature', 'text'],
  },
};

describe.each(PROVIDER_CASES)('$name: the next request is the live request', (pc) => {
  const rig = useProviderRig(pc, seedNotes(true));

  const appState = async (window: number, history: Message[] = []) =>
    new AppState({
      client: makeClient(await pc.adapter(rig.fake, rig.home), { window, cwd: rig.cwd }),
      registry: createDefaultRegistry(),
      model: 'm',
      maxOutputTokens: 1000,
      thinkingBudget: 2048,
      sessionId: 's',
      buildSystemPrompt: () => SYSTEM,
      history,
    });

  /**
   * Runs `firstPrompt` live against a real session store, then sends "Next." twice: in the same
   * process, and from a fresh adapter and AppState resumed from the transcript on disk.
   */
  async function liveThenNext(window: number, script: () => void) {
    const store = await SessionStore.create(rig.home, { cwd: rig.cwd, provider: pc.name, model: 'm', keenVersion: 'test', env: {} });
    const live = new SessionController(await appState(window), store);
    script();
    const first = await collect(live.chat('Go.') as AsyncIterable<StreamEvent>);
    expect(first.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    // What a later `keen --session ID` reads: the transcript as the first prompt left it.
    const { records } = await loadTranscript(store.path);
    const lastLive = rig.fake.requests.at(-1)!;
    rig.fake.setResponder(undefined);

    rig.fake.enqueue({ steps: [{ text: 'Next, same process.' }] });
    const same = await collect(live.chat('Next.') as AsyncIterable<StreamEvent>);
    expect(same.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const sameReq = rig.fake.requests.at(-1)!;
    await store.close();

    const sink: TranscriptSink = { append: async (_r: TurnRecord) => undefined, appendBatch: async (_r: TurnRecord[]) => undefined, redactText: (t: string) => t };
    const resumed = new SessionController(await appState(window, buildConversation(records)), sink);
    rig.fake.enqueue({ steps: [{ text: 'Next, resumed.' }] });
    const again = await collect(resumed.chat('Next.') as AsyncIterable<StreamEvent>);
    expect(again.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const resumedReq = rig.fake.requests.at(-1)!;
    return { lastLive, sameReq, resumedReq };
  }

  function expectLiveHistoryPlusReply(lastLive: RecordedRequest, next: RecordedRequest, finalText: string) {
    const live = stripCacheMarkers(pc.parts(lastLive.body));
    const n = stripCacheMarkers(pc.parts(next.body));
    expect(n.system).toEqual(live.system);
    expect(n.tools).toEqual(live.tools);
    // Exactly the live native history first, deep-equal on the wire…
    expect(n.messages.slice(0, live.messages.length)).toEqual(live.messages);
    // …then the final reply, then the new prompt.
    const rest = n.messages.slice(live.messages.length);
    expect(rest.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(rest.slice(0, -1))).toContain(finalText);
    expect(JSON.stringify(rest.at(-1))).toContain('Next.');
  }

  it('after a multi-step tool loop with reasoning: same process and resumed', async () => {
    const { lastLive, sameReq, resumedReq } = await liveThenNext(200_000, () => rig.fake.enqueue(...TOOL_LOOP));
    expect(rig.fake.requests).toHaveLength(5);
    expectLiveHistoryPlusReply(lastLive, sameReq, '42.');
    // A resumed session sends byte for byte what the live process sends.
    expect(stripCacheMarkers(resumedReq.body)).toEqual(stripCacheMarkers(sameReq.body));
    // The reasoning of the tool turns went back on the wire (the rig.fakes verify signatures and order).
    expect(JSON.stringify(pc.parts(lastLive.body).messages)).toContain('Now the folder.');
    const order = FIRST_REPLY_ORDER[pc.name];
    expect(order.pieces(resumedReq.body)).toEqual(order.expected);
    expectOneCacheKey();
  });

  it('after an automatic compaction: same process and resumed', async () => {
    const { lastLive, sameReq, resumedReq } = await liveThenNext(12_000, () => {
      let turns = 0;
      rig.fake.setResponder((req) => {
        if (isCompaction(req)) return { steps: [{ text: '## Goal\nRead the notes.\n## Accomplished\nnotes-1 read.' }] };
        turns++;
        if (turns > 4) return { steps: [{ thinking: 'All done.' }, { text: 'All read.' }] };
        return { steps: [{ thinking: `File ${turns} next.` }, { toolCall: { name: 'read_file', args: { path: `notes-${turns}.txt` } } }, { text: `Reading ${turns}.` }] };
      });
    });
    expect(rig.fake.requests.some(isCompaction)).toBe(true);
    expect(JSON.stringify(pc.parts(lastLive.body).messages)).toContain('<compacted_context>');
    expectLiveHistoryPlusReply(lastLive, sameReq, 'All read.');
    expect(stripCacheMarkers(resumedReq.body)).toEqual(stripCacheMarkers(sameReq.body));
    expectOneCacheKey();
  });

  /** Responses and Codex route a session to one cache by its id: every request, compaction and resume included. */
  function expectOneCacheKey() {
    const keys = CACHE_KEY[pc.name];
    if (!keys) return;
    expect(rig.fake.requests.length).toBeGreaterThan(2);
    for (const req of rig.fake.requests) expect(keys(req)).toEqual(['s', 's']);
  }
});

/** Where each service takes the session's cache key: Responses in the body, Codex in the body and a header. */
const CACHE_KEY: Record<string, (req: RecordedRequest) => unknown[]> = {
  'openai-responses': (req) => [req.body.prompt_cache_key, 's'],
  codex: (req) => [req.body.prompt_cache_key, req.headers.session_id],
};
