/**
 * The compaction wiring built once: `summaryRoute` (where a summary request goes, for both paths)
 * and the prune-only step inside `compact()` (the automatic path's threshold decides it).
 */
import { describe, expect, it } from 'vitest';
import { compact, type CompactInput } from '../../src/compaction/compactor.js';
import { applyPrunePlan, planPrune } from '../../src/compaction/prune.js';
import { DEFAULT_SETTINGS, NO_EXTRAS } from '../../src/compaction/settings.js';
import type { SummaryRoute } from '../../src/compaction/summarise.js';
import { NO_TOOLS, summaryRoute, type ParentSummary, type Summariser } from '../../src/compaction/summary-route.js';
import type { StreamEvent } from '../../src/core/events.js';
import type { Message } from '../../src/core/message.js';
import type { ChatRequest } from '../../src/core/provider.js';
import type { StreamOptions } from '../../src/core/stream-options.js';
import type { ToolRegistry } from '../../src/tools/types.js';
import { estimateMessage, estimateRequest, estimateText } from '../../src/tokens/token-estimator.js';

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}_${i}`).join(' ');
/** Seven turns, each reading a ~9,700-token file (with its artifact): pruning frees the old ones. */
const history: Message[] = [
  { role: 'system', content: 'SYSTEM' },
  ...[1, 2, 3, 4, 5, 6, 7].flatMap((i): Message[] => [
    { role: 'user', content: `turn ${i}` },
    { role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, name: 'read_file', args: `{"path":"f${i}.txt"}` }] },
    { role: 'tool', tool_call_id: `c${i}`, name: 'read_file', content: words(2000, `f${i}`), artifact_ref: i },
    { role: 'assistant', content: `read ${i}` },
  ]),
];
const estimate = (messages: readonly Message[]) => estimateRequest({ messages, tools: [] });

async function* answer(text: string): AsyncGenerator<StreamEvent> {
  yield { type: 'text_delta', text };
  yield { type: 'done', stopReason: 'end_turn' };
}

/** A route that answers every request with SUMMARY and counts the requests. */
function countingRoute() {
  const sent: string[] = [];
  const route = (forkEstimate: number): SummaryRoute => ({
    fork: { estimate: forkEstimate, window: 1_000_000, send: () => (sent.push('fork'), answer('SUMMARY')) },
    document: { inputBudget: 500_000, send: () => (sent.push('document'), answer('SUMMARY')) },
  });
  return { sent, route };
}

async function run(input: CompactInput) {
  const gen = compact(input);
  for (;;) {
    const step = await gen.next();
    if (step.done) return step.value;
  }
}

const input = (over: Partial<CompactInput>): CompactInput => ({
  history,
  mode: 'auto',
  settings: DEFAULT_SETTINGS,
  countText: estimateText,
  countMessage: estimateMessage,
  tokensBefore: estimate(history),
  estimate,
  route: countingRoute().route,
  visible: false,
  signal: new AbortController().signal,
  ...over,
});

describe('compact(): the prune-only step', () => {
  it('under the threshold after pruning: the pruned history, no summary request', async () => {
    const { sent, route } = countingRoute();
    const before = estimate(history);
    const outcome = await run(input({ route, pruneOnlyBelow: before }));
    const plan = planPrune(history.slice(1), { count: estimateText })!;
    expect(sent).toEqual([]);
    expect(outcome).toMatchObject({ ok: true, via: 'prune', summary: '', requests: 0, pruned: plan.pruned, tokensBefore: before });
    if (!outcome.ok) throw new Error('unreachable');
    expect(outcome.replacement).toEqual([history[0], ...applyPrunePlan(history.slice(1), plan.pruned)]);
    expect(outcome.tokensAfter).toBe(estimate(outcome.replacement));
    expect(outcome.tokensAfter).toBeLessThan(before);
  });

  it('still over the threshold after pruning: summarises (pruned form)', async () => {
    const { sent, route } = countingRoute();
    const outcome = await run(input({ route, pruneOnlyBelow: 1000 }));
    expect(sent).toHaveLength(1);
    expect(outcome).toMatchObject({ ok: true, summary: 'SUMMARY' });
    expect(outcome.ok && outcome.via).not.toBe('prune');
  });

  it('without a threshold (manual compaction) or with pruning off: always summarises', async () => {
    for (const over of [{ mode: 'manual' as const }, { pruneOnlyBelow: Number.MAX_SAFE_INTEGER, settings: NO_EXTRAS }]) {
      const { sent, route } = countingRoute();
      const outcome = await run(input({ route, ...over }));
      expect(sent).toHaveLength(1);
      expect(outcome).toMatchObject({ ok: true, summary: 'SUMMARY' });
    }
  });
});

describe('summaryRoute: one route for both paths', () => {
  const calls: { to: string; request?: ChatRequest; registry?: ToolRegistry; options?: StreamOptions; prompt?: string }[] = [];
  const parent: ParentSummary = {
    window: 200_000,
    inputBudget: 180_000,
    model: 'parent-wire',
    maxOutputTokens: 8000,
    fork: (prompt) => (calls.push({ to: 'parent-fork', prompt }), answer('F')),
    fresh: (request, options) => (calls.push({ to: 'parent-fresh', request, options }), answer('D')),
  };
  const summariser: Summariser = {
    client: { streamChat: (request, registry, options) => (calls.push({ to: 'summariser', request, registry, options }), answer('S')) },
    model: 'summariser-wire',
    inputBudget: 90_000,
    maxOutputTokens: 4000,
  };
  const signal = new AbortController().signal;
  const summaryOptions = { sessionId: 's1', oneShot: true, disableAutoCompaction: true, disableToolCalls: true, signal };

  it('the parent summarises: its fork (with the estimate and its window) and its own document request', async () => {
    calls.length = 0;
    const route = summaryRoute(parent, undefined, 's1')(1234);
    expect(route.fork).toMatchObject({ estimate: 1234, window: 200_000 });
    expect(route.document.inputBudget).toBe(180_000);
    for await (const _ of route.fork!.send('PROMPT', signal));
    for await (const _ of route.document.send('SYS', 'DOC', signal));
    expect(calls).toEqual([
      { to: 'parent-fork', prompt: 'PROMPT' },
      {
        to: 'parent-fresh',
        request: {
          model: 'parent-wire',
          // No cache breakpoints: nothing reads a document's prefix again.
          promptCache: false,
          maxOutputTokens: 8000,
          tools: [],
          messages: [
            { role: 'system', content: 'SYS' },
            { role: 'user', content: 'DOC' },
          ],
        },
        options: summaryOptions,
      },
    ]);
  });

  it('a compaction.model summariser: no fork, its own budget, model and output limit, no tools', async () => {
    calls.length = 0;
    const route = summaryRoute(parent, summariser, 's1')(1234);
    expect(route.fork).toBeUndefined();
    expect(route.document.inputBudget).toBe(90_000);
    for await (const _ of route.document.send('SYS', 'DOC', signal));
    expect(calls).toEqual([
      {
        to: 'summariser',
        request: {
          model: 'summariser-wire',
          // No cache breakpoints: nothing reads a document's prefix again.
          promptCache: false,
          maxOutputTokens: 4000,
          tools: [],
          messages: [
            { role: 'system', content: 'SYS' },
            { role: 'user', content: 'DOC' },
          ],
        },
        registry: NO_TOOLS,
        options: summaryOptions,
      },
    ]);
  });
});
