/**
 * Genkit's `generateStream` hands chunks through a channel that rejects a promise nobody awaits
 * when the request fails while the consumer is busy with a chunk (a blocked answer, a cut
 * stream): Node then ends the process on an unhandled rejection. This queue over `generate`'s
 * `onChunk` never leaves a rejection unhandled; the failure surfaces once, from the iterator.
 */

/** Runs `start` and yields each chunk it reports, then returns what it resolves to (or throws what it rejects with). */
export async function* chunksOf<C, R>(start: (onChunk: (chunk: C) => void) => Promise<R>): AsyncGenerator<C, R> {
  const queue: C[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const result = start((chunk) => {
    queue.push(chunk);
    wake?.();
  });
  const done = result.then(
    () => undefined,
    () => undefined,
  );
  void done.then(() => {
    settled = true;
    wake?.();
  });
  for (;;) {
    const next = queue.shift();
    if (next !== undefined) {
      yield next;
      continue;
    }
    if (settled) return await result;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
}
