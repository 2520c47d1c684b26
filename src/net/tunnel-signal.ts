/**
 * How a request tells its proxy tunnel that it was given up, so the tunnel's CONNECT (and TLS
 * handshake) ends with it (connect-tunnel.ts). Node hands a request's options on to its agent's
 * `createConnection` but drops the `signal` option on the way, and tells the agent nothing when a
 * request still waiting for its socket is destroyed. Two ways in, the first that is set wins:
 * - the request option `[TUNNEL_SIGNAL]: signal` (http-fetch.ts aborts it when its request
 *   times out or is aborted);
 * - {@link tunnelSignalScope}: for a client whose request options Keen does not write (Bedrock's
 *   node:http handler), the caller's signal for everything started inside `run(signal, …)`.
 * Its own file so both sides can import it without loading the tunnel.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const TUNNEL_SIGNAL: unique symbol = Symbol('keen.tunnelSignal');

export const tunnelSignalScope = new AsyncLocalStorage<AbortSignal>();
