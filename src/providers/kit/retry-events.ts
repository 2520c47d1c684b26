import type { RetryWait } from '../../core/events.js';
import { pushedValues } from './pushed-values.js';

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
export function announcingWaits<T>(start: (listener: (wait: RetryWait) => void) => Promise<T>): AsyncGenerator<RetryWaitEvent, T> {
  return pushedValues((push: (event: RetryWaitEvent) => void) => start((wait) => push({ type: 'retry_wait', wait })));
}
