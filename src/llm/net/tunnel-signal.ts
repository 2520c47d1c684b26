/**
 * The request option that cancels a proxy tunnel still being set up: `http.request(url, { agent,
 * [TUNNEL_SIGNAL]: signal })`. Node hands a request's options on to its agent's
 * `createConnection`, but drops the `signal` option on the way and tells the agent nothing when a
 * request waiting for its socket is destroyed; aborting this signal ends the CONNECT (and the TLS
 * handshake) of connect-tunnel.ts. http-fetch.ts aborts it when its request times out or is
 * aborted. Its own file so both can import it without loading the tunnel.
 */
export const TUNNEL_SIGNAL: unique symbol = Symbol('keen.tunnelSignal');
