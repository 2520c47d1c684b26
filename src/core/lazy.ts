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
