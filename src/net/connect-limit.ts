/**
 * The model APIs' connect limit, shared by the fetch (http-fetch.ts) and the proxy tunnel
 * (proxy.ts): 10 s, undici's default, or `KEEN_CONNECT_TIMEOUT_MS` when that is a positive
 * integer (milliseconds).
 */
export const CONNECT_LIMIT_MS = connectLimitMs(process.env.KEEN_CONNECT_TIMEOUT_MS);

function connectLimitMs(value: string | undefined): number {
  const ms = Number(value);
  return Number.isInteger(ms) && ms > 0 ? ms : 10_000;
}
