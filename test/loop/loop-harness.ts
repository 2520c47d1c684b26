import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { computeBudget } from '../../src/tokens/context-budget.js';
import type { StreamEvent } from '../../src/core/events.js';
import type { Message } from '../../src/core/message.js';
import type { ChatRequest, ProviderAdapter } from '../../src/core/provider.js';
import { ContextMeter } from '../../src/tokens/token-estimator.js';
import { createChatClient, type ChatClient } from '../../src/loop/tool-loop.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';

export const COMPACTION_MARKER = 'This is a context compaction';

export interface ClientOptions {
  /** Context window of the model (small windows make compaction reachable). */
  window?: number;
  cwd?: string;
  maxTurns?: number;
  auto?: boolean;
}

/** Dirs made outside a running test (e.g. in beforeAll): removed when the worker exits. */
const leftovers = new Set<string>();
process.once('exit', () => {
  for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh directory under the OS temp dir that cleans itself up: made in a test or its
 * beforeEach, it is removed when that test finishes; made elsewhere, when the worker exits.
 */
export function tempDir(prefix = 'keen-loop-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  } catch {
    leftovers.add(dir);
  }
  return dir;
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

export async function collect(stream: AsyncIterable<StreamEvent>, onEvent?: (ev: StreamEvent) => void): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const ev of stream) {
    events.push(ev);
    onEvent?.(ev);
  }
  return events;
}

export function textOf(events: StreamEvent[]): string {
  return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
}

/** Event types in order, with consecutive duplicates (deltas) collapsed. */
export function eventOrder(events: StreamEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) if (out[out.length - 1] !== e.type) out.push(e.type);
  return out;
}
