/**
 * Manual `/compact` keeps the compaction instruction out of the prompt cache (issue 29): its fork
 * is the turn's request plus the instruction, and the cache breakpoint (Anthropic `cache_control`,
 * Bedrock `cachePoint`) sits at the end of the request, before the instruction, as on the
 * automatic path. The fakes record the request as sent. With a thinking budget the fork carries the
 * parent's thinking (a change would drop the cached messages), and the budget is room the fork's
 * summary cannot use: a fork that fits the window only without it goes to the budgeted document.
 */
import { describe, expect, it } from 'vitest';
import { AppState, type AppCompaction } from '../../src/agent/app-state.js';
import { compactionWiring } from '../../src/agent/compaction-setup.js';
import { SUMMARISER_SYSTEM_PROMPT } from '../../src/compaction/prompts.js';
import { NO_EXTRAS } from '../../src/compaction/settings.js';
import { userMessage, type Message } from '../../src/core/message.js';
import { computeBudget, type ContextBudget } from '../../src/tokens/context-budget.js';
import { ContextMeter, estimateRequest } from '../../src/tokens/token-estimator.js';
import { createChatClient } from '../../src/loop/tool-loop.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import { PROVIDER_CASES } from '../providers/conformance-cases.js';
import { useProviderRig } from '../providers/provider-rig.js';
import { COMPACTION_MARKER } from '../loop/loop-harness.js';
import { collect } from '../kit/events.js';

const SUMMARY = '## Goal\nTalk.\n## Accomplished\nTalked.';
const history: Message[] = [
  userMessage('Tell me about the parser module, in detail please.'),
  { role: 'assistant', content: 'The parser reads tokens and builds the tree.' },
  userMessage('And the lexer?'),
  { role: 'assistant', content: 'The lexer splits the input into tokens.' },
];

/** Where the breakpoint is, as [message index, block index] of the block it follows, and where the instruction is. */
function positions(name: string, body: any): { breakpoint: [number, number][]; instruction: [number, number] } {
  const breakpoint: [number, number][] = [];
  let instruction: [number, number] = [-1, -1];
  for (const [i, m] of (body.messages as any[]).entries()) {
    for (const [j, b] of (m.content as any[]).entries()) {
      if (name === 'anthropic' && b.cache_control) breakpoint.push([i, j]);
      if (name === 'bedrock' && 'cachePoint' in b) breakpoint.push([i, j - 1]);
      if ((b.text ?? '').startsWith(COMPACTION_MARKER)) instruction = [i, j];
    }
  }
  return { breakpoint, instruction };
}

/** The thinking fields a request body sends (Anthropic's `thinking`, Bedrock's additional fields). */
const thinkingOf = (body: any): unknown => body.thinking ?? body.additionalModelRequestFields?.thinking;

/** A long earlier conversation: `n` exchanges of ~1,500 tokens each. */
const longHistory = (n: number): Message[] =>
  Array.from({ length: n }, (_, i): Message[] => [
    userMessage(`Question ${i}: ${Array.from({ length: 150 }, (_, k) => `row ${k} of ${i}: value_${(k * 7919 + i) % 10007}`).join(' ')}`),
    { role: 'assistant', content: `Answer ${i}.` },
  ]).flat();

describe.each(PROVIDER_CASES.filter((pc) => pc.name === 'anthropic' || pc.name === 'bedrock'))('$name: manual compaction', (pc) => {
  const rig = useProviderRig(pc);
  // A model with prompt caching (Bedrock places cache points only for those).
  const model = pc.name === 'bedrock' ? 'anthropic.claude-sonnet-4-5-20250929-v1:0' : 'claude-sonnet-4-5';

  /** AppState over the real adapter and the fake; `compaction` defaults to a 200k window's. */
  async function app(opts: { budget: ContextBudget; maxOutputTokens: number; thinkingBudget?: number; history?: Message[]; compaction?: AppCompaction }): Promise<AppState> {
    const client = createChatClient(await pc.adapter(rig.fake, rig.home), {
      cwd: rig.cwd,
      permissions: createHeadlessGate({ yolo: true, allow: [] }),
      budget: opts.budget,
      newGauge: () => new ContextMeter(),
      maxTurns: 4,
    });
    return new AppState({
      client,
      registry: createDefaultRegistry(),
      model,
      maxOutputTokens: opts.maxOutputTokens,
      thinkingBudget: opts.thinkingBudget,
      sessionId: 's',
      buildSystemPrompt: () => 'You are a test agent.',
      history: opts.history ?? history,
      compaction: opts.compaction ?? { settings: NO_EXTRAS, window: opts.budget.window, inputBudget: opts.budget.inputBudget },
    });
  }

  async function compactOnce(state: AppState): Promise<void> {
    const stream = state.streamCompact();
    await collect({ [Symbol.asyncIterator]: () => stream } as AsyncIterable<never>);
  }

  /** The breakpoint sits on the last assistant answer's last block and the instruction follows it. */
  function expectBreakpointBeforeInstruction(body: any): void {
    const { breakpoint, instruction } = positions(pc.name, body);
    const last = body.messages.findLastIndex((m: any) => m.role === 'assistant');
    expect(breakpoint).toEqual([[last, 0]]);
    expect(instruction[0]).toBeGreaterThan(last);
  }

  it('puts the message breakpoint at the end of the request, before the compaction instruction', async () => {
    const budget = computeBudget({ contextWindow: 200_000, maxOutputTokens: 1000 }, { auto: true, threshold: 0.9 });
    const state = await app({ budget, maxOutputTokens: 1000 });
    rig.fake.enqueue({ steps: [{ text: SUMMARY }] });
    await compactOnce(state);
    expect(rig.fake.requests).toHaveLength(1);
    // The newest message of the request is the last assistant answer: its last block ends the cached prefix.
    expectBreakpointBeforeInstruction(rig.fake.requests[0].body);
  });

  it('with a 16k thinking budget under a 32k limit: the summary request thinks as the turns do, breakpoint still before the instruction', async () => {
    const budget = computeBudget({ contextWindow: 200_000, maxOutputTokens: 32_000 }, { auto: true, threshold: 0.9 });
    const thinking = { budget: 16_000, maxOutputTokens: 32_000 };
    const state = await app({ budget, maxOutputTokens: 32_000, thinkingBudget: 16_000, compaction: compactionWiring(NO_EXTRAS, budget, undefined, { thinking }).app });
    rig.fake.enqueue({ steps: [{ thinking: 'What to keep.' }, { text: SUMMARY }] });
    await compactOnce(state);
    // A normal turn after it: the parent request the summary must match.
    rig.fake.enqueue({ steps: [{ thinking: 'Answering.' }, { text: 'Next.' }] });
    await collect(state.streamChat('What next?'));
    expect(rig.fake.requests).toHaveLength(2);
    const [summary, parent] = rig.fake.requests.map((r) => r.body);
    expect(JSON.stringify(summary.system)).toBe(JSON.stringify(parent.system));
    expect(thinkingOf(parent)).toEqual({ type: 'enabled', budget_tokens: 16_000 });
    expect(thinkingOf(summary)).toEqual(thinkingOf(parent));
    expectBreakpointBeforeInstruction(summary);
  });

  it('a fork that fits the window only without the thinking budget goes to the budgeted document', async () => {
    const thinking = { budget: 16_000, maxOutputTokens: 32_000 };
    const long = longHistory(12);
    // A window the fork fits with 8k to spare: less than the 16k budget it would also need.
    const probe = await app({
      budget: computeBudget({ contextWindow: 200_000, maxOutputTokens: 32_000 }, { auto: false, threshold: 0.9 }),
      maxOutputTokens: 32_000,
      history: long,
    });
    const window = estimateRequest(probe.buildRequest()) + 2048 + 8_000;
    const budget = computeBudget({ contextWindow: window, maxOutputTokens: 32_000 }, { auto: false, threshold: 0.9 });
    const routeOf = async (withThinking: boolean): Promise<string> => {
      rig.fake.requests.splice(0);
      const compaction = compactionWiring(NO_EXTRAS, budget, undefined, withThinking ? { thinking } : {}).app;
      const state = await app({ budget, maxOutputTokens: 32_000, thinkingBudget: withThinking ? 16_000 : undefined, history: long, compaction });
      rig.fake.enqueue({ steps: [{ text: SUMMARY }] });
      await compactOnce(state);
      expect(rig.fake.requests).toHaveLength(1);
      const system = JSON.stringify(rig.fake.requests[0].body.system);
      return system.includes('You are a test agent.') ? 'fork' : system.includes(SUMMARISER_SYSTEM_PROMPT.slice(0, 40)) ? 'document' : system;
    };
    expect(await routeOf(false)).toBe('fork');
    expect(await routeOf(true)).toBe('document');
  });
});
