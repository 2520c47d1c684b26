import type { RetryWait } from '../../core/events.js';

/** The stream event announcing one retry wait. */
export interface RetryWaitEvent {
  type: 'retry_wait';
  wait: RetryWait;
}

/**
 * Runs `start`, which reports its retry waits to the listener it is given, and yields each wait
 * as a `retry_wait` event while it runs; returns (or throws) what `start` settles with. Lets a
 * `send` whose SDK call waits inside one promise (the fetch-based SDKs, Bedrock) announce the
 * waits in its own stream, so every stream carries its own waits and no listener is shared.
 */
export async function* announcingWaits<T>(start: (listener: (wait: RetryWait) => void) => Promise<T>): AsyncGenerator<RetryWaitEvent, T> {
  const waits: RetryWait[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const listener = (wait: RetryWait) => {
    waits.push(wait);
    wake?.();
  };
  const running = start(listener).finally(() => {
    settled = true;
    wake?.();
  });
  // Read below; a rejection must not count as unhandled while waits are being yielded.
  running.catch(() => undefined);
  for (;;) {
    while (waits.length > 0) yield { type: 'retry_wait', wait: waits.shift()! };
    if (settled) return await running;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
}
