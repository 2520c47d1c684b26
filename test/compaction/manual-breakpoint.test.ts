/**
 * Manual `/compact` keeps the compaction instruction out of the prompt cache (issue 29): its fork
 * is the turn's request plus the instruction, and the cache breakpoint (Anthropic `cache_control`,
 * Bedrock `cachePoint`) sits at the end of the request, before the instruction, as on the
 * automatic path. The fakes record the request as sent.
 */
import { describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { NO_EXTRAS } from '../../src/compaction/settings.js';
import { userMessage, type Message } from '../../src/core/message.js';
import { computeBudget } from '../../src/tokens/context-budget.js';
import { ContextMeter } from '../../src/tokens/token-estimator.js';
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

describe.each(PROVIDER_CASES.filter((pc) => pc.name === 'anthropic' || pc.name === 'bedrock'))('$name: manual compaction', (pc) => {
  const rig = useProviderRig(pc);

  it('puts the message breakpoint at the end of the request, before the compaction instruction', async () => {
    const budget = computeBudget({ contextWindow: 200_000, maxOutputTokens: 1000 }, { auto: true, threshold: 0.9 });
    const client = createChatClient(await pc.adapter(rig.fake, rig.home), {
      cwd: rig.cwd,
      permissions: createHeadlessGate({ yolo: true, allow: [] }),
      budget,
      newGauge: () => new ContextMeter(),
      maxTurns: 4,
    });
    const app = new AppState({
      client,
      registry: createDefaultRegistry(),
      // A model with prompt caching (Bedrock places cache points only for those).
      model: pc.name === 'bedrock' ? 'anthropic.claude-sonnet-4-5-20250929-v1:0' : 'claude-sonnet-4-5',
      maxOutputTokens: 1000,
      sessionId: 's',
      buildSystemPrompt: () => 'You are a test agent.',
      history,
      compaction: { settings: NO_EXTRAS, window: budget.window, inputBudget: budget.inputBudget },
    });
    rig.fake.enqueue({ steps: [{ text: SUMMARY }] });
    const stream = app.streamCompact();
    await collect({ [Symbol.asyncIterator]: () => stream } as AsyncIterable<never>);
    expect(rig.fake.requests).toHaveLength(1);
    const { breakpoint, instruction } = positions(pc.name, rig.fake.requests[0].body);
    // The newest message of the request is the last assistant answer: its last block ends the cached prefix.
    const last = rig.fake.requests[0].body.messages.findLastIndex((m: any) => m.role === 'assistant');
    expect(breakpoint).toEqual([[last, 0]]);
    expect(instruction[0]).toBeGreaterThan(last);
  });
});
