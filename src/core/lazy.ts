/**
 * Memoises an async factory (an SDK import, a client): the first call starts it, later calls
 * share the result, and a failure is forgotten so the next call retries.
 */
export function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    p ??= make().catch((err) => {
      p = undefined;
      throw err;
    });
    return p;
  };
}

/** Memoises a synchronous factory (a zod schema built at its first use instead of at import). */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
