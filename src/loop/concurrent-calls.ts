import type { ToolCall, ToolMessage } from '../core/message.js';
import type { ToolContext, ToolRegistry } from '../tools/types.js';

/** Concurrent tool calls (read-only tools, `task`) of one reply run at most this many at a time. */
export const MAX_CONCURRENT_CALLS = 4;

/**
 * Runs a reply's tool calls and hands back their results in call order. Each maximal run of
 * neighbouring calls that the registry marks `concurrent` starts together (at most
 * {@link MAX_CONCURRENT_CALLS} at a time) when its first call is reached; every other call runs
 * alone, after the calls before it finished — so a write is never reordered around anything.
 * Concurrent calls that need a permission ask through the same gate; the REPL's session gate
 * queues its questions, so they are still asked one at a time (in the order the calls reach it).
 */
export function callScheduler(calls: readonly ToolCall[], registry: ToolRegistry, ctx: ToolContext): (index: number) => Promise<ToolMessage> {
  const started = new Map<number, Promise<ToolMessage>>();
  const isConcurrent = (i: number) => registry.concurrent?.(calls[i].name) === true;
  return (index) => {
    const existing = started.get(index);
    if (existing) return existing;
    if (!isConcurrent(index)) return registry.execute(calls[index], ctx);
    const limit = limiter(MAX_CONCURRENT_CALLS);
    for (let i = index; i < calls.length && isConcurrent(i); i++) {
      const call = calls[i];
      started.set(
        i,
        limit(() => registry.execute(call, ctx)),
      );
    }
    return started.get(index) as Promise<ToolMessage>;
  };
}

function limiter(max: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (active >= max) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
