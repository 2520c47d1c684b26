import { computeBudget } from '../../src/tokens/context-budget.js';
import type { Message } from '../../src/core/message.js';
import type { ChatRequest, ProviderAdapter } from '../../src/core/provider.js';
import { ContextMeter } from '../../src/tokens/token-estimator.js';
import { createChatClient, type ChatClient } from '../../src/loop/tool-loop.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import { tempDir } from '../kit/temp-dir.js';

export const COMPACTION_MARKER = 'This is a context compaction';

export interface ClientOptions {
  /** Context window of the model (small windows make compaction reachable). */
  window?: number;
  cwd?: string;
  maxTurns?: number;
  auto?: boolean;
}

/** The real shared loop over a real adapter, tools allowed (--yolo), in a temp workspace. */
export function makeClient(adapter: ProviderAdapter, opts: ClientOptions = {}): ChatClient {
  return createChatClient(adapter, {
    cwd: opts.cwd ?? tempDir(),
    permissions: createHeadlessGate({ yolo: true, allow: [] }),
    budget: computeBudget({ contextWindow: opts.window ?? 200_000, maxOutputTokens: 1000 }, { auto: opts.auto ?? true, threshold: 0.9 }),
    newGauge: () => new ContextMeter(),
    maxTurns: opts.maxTurns ?? 60,
  });
}

export function request(messages: Message[], model = 'test-model'): ChatRequest {
  return { model, messages, tools: createDefaultRegistry().definitions(), maxOutputTokens: 1000 };
}
