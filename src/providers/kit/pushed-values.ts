/**
 * An async generator over the values a callback-style call pushes while it runs. The SDK calls
 * that report progress through a listener (a retry wait, Genkit's `onChunk`) settle one promise;
 * this turns what they push into a stream the adapter reads in order.
 *
 * It never leaves a rejection unhandled, even while the consumer is busy with a value (Genkit's
 * own `generateStream` does: Node then ends the process); the failure surfaces once, from the
 * iterator, after every value pushed before it.
 */

/** Runs `start`, yields each value it pushes, then returns what it resolves to (or throws what it rejects with). */
export async function* pushedValues<V, R>(start: (push: (value: V) => void) => Promise<R>): AsyncGenerator<V, R> {
  const queue: V[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const running = start((value) => {
    queue.push(value);
    wake?.();
  });
  // Read below; a rejection must not count as unhandled while values are being yielded.
  void running
    .catch(() => undefined)
    .then(() => {
      settled = true;
      wake?.();
    });
  for (;;) {
    while (queue.length > 0) yield queue.shift()!;
    if (settled) return await running;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
}
