/**
 * Milliseconds on a monotonic clock, for "how long ago" checks on the launch path. The global
 * `performance` loads Node's perf_hooks module on first use, before the first request of a
 * `keen run`; `process.hrtime` is already there.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}
