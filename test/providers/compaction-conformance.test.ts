import { describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { SessionController, type TranscriptSink, type TurnRecord } from '../../src/agent/session-controller.js';
import { NO_EXTRAS } from '../../src/compaction/settings.js';
import { computeBudget } from '../../src/tokens/context-budget.js';
import type { StreamEvent } from '../../src/core/events.js';
import { systemMessage, userMessage, type Message } from '../../src/core/message.js';
import { ContextMeter, estimateRequest, estimateText } from '../../src/tokens/token-estimator.js';
import type { ToolDefinition } from '../../src/core/provider.js';
import { artifactRegistry } from '../../src/compaction/artifact-registry.js';
import { ArtifactStore } from '../../src/transcript/artifacts.js';
import { createRecallTool } from '../../src/tools/recall.js';
import { createChatClient } from '../../src/loop/tool-loop.js';
import { SUMMARISER_SYSTEM_PROMPT } from '../../src/compaction/prompts.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import type { FakeReply, RecordedRequest } from '../fakes/script.js';
import { COMPACTION_MARKER, request } from '../loop/loop-harness.js';
import { collect } from '../kit/events.js';
import { PROVIDER_CASES } from './conformance-cases.js';
import { notes, seedNotes, useProviderRig } from './provider-rig.js';

const SUMMARY = '## Goal\nRead the notes.\n## Accomplished\nnotes read.';
const TOO_LONG = { error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } };
const isCompaction = (req: RecordedRequest) => JSON.stringify(req.body).includes(COMPACTION_MARKER);
const isDocument = (req: RecordedRequest) => JSON.stringify(req.body).includes(SUMMARISER_SYSTEM_PROMPT.slice(0, 40));
const WINDOW = 12_000;
const WORDS = ['parser', 'handles', 'nested', 'blocks', 'reports', 'errors', 'clearly', 'module', 'returns', 'value', 'when', 'the', 'input'];
const w = (k: number) => WORDS[k % WORDS.length];
/** ~10,000 estimated tokens of prose-like lines. */
const prose = (n: number) =>
  Array.from(
    { length: 400 },
    (_, k) => `     ${k + 1}\tentry ${k} of big ${n}: the ${w(k)} ${w(k * 7)} ${w(k * 11)} and ${w(k * 5)} the ${w(k * 3)} while ${w(k * 2)} stays.`,
  ).join('\n');
/** A gauge on the local estimate alone, so the fakes' rough usage numbers do not move the trigger. */
const localGauge = () => ({
  estimate: (messages: readonly Message[], tools: readonly ToolDefinition[]) => estimateRequest({ messages, tools }),
  observe: () => undefined,
  reset: () => undefined,
});

describe.each(PROVIDER_CASES)('$name compaction conformance', (pc) => {
  const rig = useProviderRig(pc, seedNotes(false));

  const budget = () => computeBudget({ contextWindow: WINDOW, maxOutputTokens: 1000 }, { auto: true, threshold: 0.9 });
  const client = async (settings = NO_EXTRAS) =>
    createChatClient(await pc.adapter(rig.fake, rig.home), {
      cwd: rig.cwd,
      permissions: createHeadlessGate({ yolo: true, allow: [] }),
      budget: budget(),
      newGauge: () => new ContextMeter(),
      maxTurns: 60,
      compaction: { settings },
    });
  const run = async (settings = NO_EXTRAS) =>
    collect((await client(settings)).streamChat(request([systemMessage('You are a conformance test agent.'), userMessage('Go.')]), createDefaultRegistry()));

  function readerAgent(reads: number, compaction: (k: number) => FakeReply) {
    let turns = 0;
    let k = 0;
    rig.fake.setResponder((req) => {
      if (isCompaction(req)) return compaction(++k);
      turns++;
      if (turns > reads) return { steps: [{ text: 'All read.' }] };
      return { steps: [{ text: `Reading ${turns}.` }, { toolCall: { id: `r_${turns}`, name: 'read_file', args: { path: `notes-${turns}.txt` } } }] };
    });
  }

  const noTools = (body: any) => {
    const tools = pc.parts(body).tools as any;
    return tools === undefined || (Array.isArray(tools) && tools.length === 0);
  };

  it('a context-length refusal of the nested request falls back to the budgeted document and applies, in ≤ 4 requests', async () => {
    readerAgent(4, (k) => (k === 1 ? TOO_LONG : { steps: [{ text: SUMMARY }] }));
    const events = await run();
    const applied = events.find((e) => e.type === 'auto_compaction_applied') as Extract<StreamEvent, { type: 'auto_compaction_applied' }>;
    expect(applied).toBeDefined();
    const sent = rig.fake.requests.filter(isCompaction);
    expect(sent).toHaveLength(2);
    expect(isDocument(sent[0])).toBe(false);
    expect(isDocument(sent[1])).toBe(true);
    expect(noTools(sent[1].body)).toBe(true);
    expect(JSON.stringify(pc.parts(sent[1].body).messages)).toContain('<conversation>');
    const next = rig.fake.requests[rig.fake.requests.indexOf(sent[1]) + 1];
    expect(JSON.stringify(pc.parts(next.body).messages)).toContain('notes read.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('a stream cut mid-summary is retried once with the same request, then applies', async () => {
    readerAgent(4, (k) => (k === 1 ? { steps: [{ text: '## Goal\nhalf a summ' }, { cut: true }] } : { steps: [{ text: SUMMARY }] }));
    const events = await run();
    expect(events.some((e) => e.type === 'auto_compaction_applied')).toBe(true);
    const sent = rig.fake.requests.filter(isCompaction);
    expect(sent.length).toBe(2);
    expect(isDocument(sent[1])).toBe(false);
    expect((events.find((e) => e.type === 'auto_compaction_applied') as any).summary).toBe(SUMMARY);
  });

  it('an automatic compaction keeps the verbatim tail after the summary: the newest call and its result, whole', async () => {
    readerAgent(4, () => ({ steps: [{ text: SUMMARY }] }));
    const events = await run({ keepRecentTokens: 4000, prune: false });
    const applied = events.find((e) => e.type === 'auto_compaction_applied') as Extract<StreamEvent, { type: 'auto_compaction_applied' }>;
    expect(applied).toBeDefined();
    const [system, head, ...tail] = applied.replacement;
    expect(system.role).toBe('system');
    expect(head).toMatchObject({ role: 'user', summary_level: 1 });
    expect(tail.length).toBeGreaterThan(0);
    expect(tail[0].role).toBe('assistant'); // never a tool result first
    expect(tail.at(-1)!.role).toBe('tool');
    const next = rig.fake.requests[rig.fake.requests.indexOf(rig.fake.requests.filter(isCompaction)[0]) + 1];
    const wire = JSON.stringify(pc.parts(next.body).messages);
    const newest = (tail.at(-1) as any).content as string;
    expect(wire).toContain(JSON.stringify(newest.split('\n')[3]).slice(1, -1)); // the tail's tool output went out verbatim
    expect(wire).toContain('notes read.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('prune-only: old outputs become artifact handles on the wire, and recall returns one in full', async () => {
    const store = await ArtifactStore.open(rig.home, []);
    const registry = artifactRegistry(createDefaultRegistry(undefined, [createRecallTool((n) => store.get(n))]), store);
    const history: Message[] = [systemMessage('You are a conformance test agent.'), userMessage('turn one')];
    for (let i = 1; i <= 7; i++) {
      const content = prose(i);
      const n = await store.put(content);
      history.push(
        { role: 'assistant', content: '', tool_calls: [{ id: `old_${i}`, name: 'read_file', args: JSON.stringify({ path: `big-${i}.txt` }) }] },
        { role: 'tool', tool_call_id: `old_${i}`, name: 'read_file', content, artifact_ref: n },
      );
    }
    history.push({ role: 'assistant', content: 'Done one.' }, userMessage('turn two'), { role: 'assistant', content: 'Done two.' }, userMessage('turn three'));
    let recalled = false;
    rig.fake.setResponder((req) => {
      const wire = JSON.stringify(pc.parts(req.body).messages);
      if (isCompaction(req)) return { steps: [{ text: SUMMARY }] };
      if (wire.includes('[artifact#2]') && !recalled) {
        recalled = true;
        return { steps: [{ toolCall: { id: 'rc', name: 'recall', args: { artifact: 'artifact#2' } } }] };
      }
      return { steps: [{ text: 'Recalled.' }] };
    });
    const c = createChatClient(await pc.adapter(rig.fake, rig.home), {
      cwd: rig.cwd,
      permissions: createHeadlessGate({ yolo: true, allow: [] }),
      // ~76k tokens before the first request, threshold 59,313: pruning 3 old outputs (~30k) alone
      // brings it under, and the recalled 10k tokens still fit under it.
      budget: computeBudget({ contextWindow: 70_000, maxOutputTokens: 1000 }, { auto: true, threshold: 0.9 }),
      newGauge: localGauge,
      maxTurns: 10,
      compaction: { settings: { keepRecentTokens: 0, prune: true } },
    });
    const events = await collect(c.streamChat({ ...request(history), tools: registry.definitions() }, registry));
    const applied = events.find((e) => e.type === 'auto_compaction_applied') as Extract<StreamEvent, { type: 'auto_compaction_applied' }>;
    expect(applied.summary).toBe('');
    expect(applied.pruned!.map((p) => p.artifact)).toEqual([1, 2, 3]);
    expect(rig.fake.requests.filter(isCompaction)).toHaveLength(0); // pruning alone was enough: no summary request
    expect(JSON.stringify(history)).toContain('entry 7 of big 2:');
    // The budget is checked before the first request too: it already goes out pruned.
    const [first, second] = rig.fake.requests;
    const pruned = JSON.stringify(pc.parts(first.body).messages);
    expect(pruned).not.toContain('entry 7 of big 2:');
    expect(pruned).toContain('[artifact#2] read_file');
    expect(pruned).toContain('entry 7 of big 4:'); // the newest 40,000 tokens of tool output stay
    const back = JSON.stringify(pc.parts(second.body).messages);
    expect(back).toContain('entry 0 of big 2:');
    expect(back).toContain('entry 399 of big 2:');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  function controller(history: Message[], window = WINDOW) {
    const records: TurnRecord[] = [];
    const sink: TranscriptSink = { append: async (r) => records.push(r), appendBatch: async (rs) => records.push(...rs), redactText: (t) => t };
    return client().then((c) => {
      const b = computeBudget({ contextWindow: window, maxOutputTokens: 1000 }, { auto: true, threshold: 0.9 });
      const appState = new AppState({
        client: c,
        registry: createDefaultRegistry(),
        model: 'm',
        maxOutputTokens: 1000,
        sessionId: 's',
        buildSystemPrompt: () => 'You are a conformance test agent.',
        history,
        compaction: { settings: NO_EXTRAS, window: b.window, inputBudget: b.inputBudget },
      });
      return { c: new SessionController(appState, sink), appState, records, inputBudget: b.inputBudget };
    });
  }

  it('a manual compaction of a history twice the window sends one budgeted document that fits', async () => {
    const history: Message[] = [];
    for (let i = 1; i <= 12; i++) history.push(userMessage(`Question ${i}: ${notes(i).slice(0, 1500)}`), { role: 'assistant', content: `Answer ${i}: ${notes(i + 20)}` });
    const { c, appState, records, inputBudget } = await controller(history);
    rig.fake.enqueue({ steps: [{ text: SUMMARY }] });
    const events = await collect(c.compact() as AsyncIterable<StreamEvent>);
    expect(events.at(-1)).toEqual({ type: 'compaction_done', summary: SUMMARY });
    expect(rig.fake.requests).toHaveLength(1);
    const req = rig.fake.requests[0];
    expect(isDocument(req)).toBe(true);
    const text = JSON.stringify(pc.parts(req.body).messages);
    expect(estimateText(text)).toBeLessThanOrEqual(inputBudget);
    expect(text).toMatch(/earlier messages omitted to fit the summariser window/);
    expect(appState.messages).toEqual([{ role: 'user', content: `<compacted_context>\n${SUMMARY}\n</compacted_context>`, summary_level: 1 }]);
    expect(records.at(-1)).toMatchObject({ kind: 'compaction_applied', mode: 'manual' });
  });

  it('a compaction of a summarised history merges: the update prompt, one summary at the head, level 2', async () => {
    const head: Message = { role: 'user', content: '<compacted_context>\n## Discoveries\nFACT-A: the parser is in src/p.ts\n</compacted_context>', summary_level: 1 };
    const { c, appState } = await controller([head, userMessage('Now fix the lexer.'), { role: 'assistant', content: 'Fixed src/lexer.ts (FACT-B).' }], 200_000);
    rig.fake.enqueue({ steps: [{ text: '## Discoveries\nFACT-A: the parser is in src/p.ts\nFACT-B: src/lexer.ts fixed' }] });
    await collect(c.compact() as AsyncIterable<StreamEvent>);
    const wire = JSON.stringify(pc.parts(rig.fake.requests[0].body).messages);
    expect(wire).toContain('MERGE it with');
    expect(wire).toContain('FACT-A');
    expect(appState.messages).toHaveLength(1);
    expect(appState.messages[0]).toMatchObject({ role: 'user', summary_level: 2 });
    expect(appState.messages[0].content).toMatch(/^<compacted_context>\n## Discoveries\nFACT-A[\s\S]*FACT-B[\s\S]*<\/compacted_context>$/);
  });
});
