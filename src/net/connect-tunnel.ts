/**
 * A CONNECT tunnel through an HTTP or HTTPS proxy, on Node's own HTTP client: an `http.Agent`
 * whose `createConnection` sends `CONNECT host:port` to the proxy (`http.request`'s 'connect'
 * event), then hands the request the tunnelled socket — wrapped in TLS for an https target.
 *
 * - One agent per proxy and target scheme (proxy.ts keeps them); its keep-alive pool holds the
 *   tunnelled sockets per target origin (and TLS name), so a second request reuses the tunnel.
 * - An https target is verified as Node's https.Agent would: SNI = the host name, none for an IP
 *   literal (tls.connect refuses IP servernames), and the certificate checked against that name
 *   or IP. A certificate that does not verify fails the request (the socket errors).
 * - An https:// proxy gets TLS too (SNI its host name, checked against its name or IP).
 * - Proxy credentials come from the proxy URL's userinfo (`Proxy-Authorization: Basic`,
 *   percent-decoded); errors name the proxy as `scheme://host:port` only, never the credentials.
 * - A CONNECT answered with anything but 2xx, or a proxy that drops the connection, fails that
 *   one request with a one-line error (no retry here: undici's ProxyAgent re-sent such a CONNECT
 *   in a tight loop, nodejs/undici#3897).
 * - A request that is aborted or times out while its tunnel is being set up destroys the CONNECT
 *   socket, given its signal (tunnel-signal.ts: http-fetch.ts passes one, Bedrock's handler runs
 *   in its scope).
 * - Time limits: http-fetch.ts's connect limit runs until the TLS handshake ends; for other
 *   callers (Bedrock's handler) the agent's `connectTimeoutMs` does the same.
 * - Errors a retry can fix look as the AWS SDK's retry strategy expects: a timeout is named
 *   `TimeoutError`, a refusal with a status a server's retry would follow carries `$retryable`.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { PROXY_REFUSED } from '../core/errors.js';
import { retryableStatus } from './retry-fetch.js';
import { TUNNEL_SIGNAL, tunnelSignalScope } from './tunnel-signal.js';

/** TLS settings for the tunnelled https target and an https proxy (tests trust their own CA here). */
export type TunnelTlsOptions = Pick<tls.ConnectionOptions, 'ca' | 'rejectUnauthorized' | 'checkServerIdentity' | 'minVersion' | 'maxVersion' | 'ciphers'>;

export interface ConnectTunnelOptions extends TunnelTlsOptions {
  /** The scheme of the targets this agent serves: 'https:' wraps each tunnel in TLS. */
  target: 'http:' | 'https:';
  /** Keep idle tunnels for reuse (default true). */
  keepAlive?: boolean;
  /**
   * The longest the CONNECT and, for https targets, the TLS handshake may take (default: none),
   * for requests that do not time it themselves (http-fetch's pass `[TUNNEL_SIGNAL]` and do).
   */
  connectTimeoutMs?: number;
}

type ConnectionOptions = http.ClientRequestArgs & tls.ConnectionOptions & { [TUNNEL_SIGNAL]?: AbortSignal };

const TLS_KEYS = ['ca', 'rejectUnauthorized', 'checkServerIdentity', 'minVersion', 'maxVersion', 'ciphers'] as const;

/** `scheme://host:port` of a proxy URL: what errors may say (no userinfo, no path). */
export function proxyLabel(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/**
 * The proxy URL from an environment variable: `host:port` alone means http:// (as curl reads
 * it); http:// and https:// proxies only. Throws a one-line Error naming the proxy otherwise.
 */
export function parseProxyUrl(raw: string): URL {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`the proxy setting is not a URL (expected http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`proxy ${proxyLabel(url)} is not supported: only http:// and https:// proxies can tunnel`);
  }
  if (!url.hostname) throw new Error(`the proxy setting names no host (expected http://host:port)`);
  // `http://user:pa/ss@proxy` (a password with an unencoded "/" or "?") parses as host "user": an
  // error naming that host would show the user name and part of the password.
  if (/^[a-z][a-z0-9+.-]*:\/\/.*[/?#].*@/i.test(text)) {
    throw new Error('the proxy setting is not a valid URL: percent-encode the characters of its user name and password (e.g. "/" as %2F)');
  }
  return url;
}

/** The Proxy-Authorization value for the proxy URL's userinfo (percent-decoded), if it has one. */
function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  let credentials: string;
  try {
    credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  } catch {
    throw new Error(`the user name or password in the setting for proxy ${proxyLabel(proxy)} is not valid percent-encoding`);
  }
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}

/** An agent that opens every connection as a CONNECT tunnel through `proxy` (see the file comment). */
export class ConnectTunnelAgent extends http.Agent {
  private readonly proxy: string;
  private readonly secure: boolean;
  private readonly tlsOptions: TunnelTlsOptions;
  private readonly connectTimeoutMs: number | undefined;

  constructor(proxy: string, { target, keepAlive = true, connectTimeoutMs, ...tlsOptions }: ConnectTunnelOptions) {
    super({ keepAlive });
    this.proxy = proxy;
    this.connectTimeoutMs = connectTimeoutMs;
    this.secure = target === 'https:';
    this.tlsOptions = tlsOptions;
    // The request checks the agent's protocol against its URL's, and takes its default port.
    Object.assign(this, { protocol: target, defaultPort: this.secure ? 443 : 80 });
  }

  /** Pooled tunnels are per target host:port and, for https, per TLS name. */
  override getName(options?: http.ClientRequestArgs): string {
    const name = super.getName(options);
    return this.secure ? `${name}:${(options as ConnectionOptions | undefined)?.servername ?? ''}` : name;
  }

  override createConnection(options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): undefined {
    const done = once(callback ?? (() => {}));
    openTunnel(this.proxy, this.secure, this.tlsOptions, options as ConnectionOptions, done, this.connectTimeoutMs);
    return undefined;
  }
}

function once(callback: (err: Error | null, stream: Duplex) => void): (err: Error | null, stream?: Duplex) => void {
  let called = false;
  return (err, stream) => {
    if (called) return;
    called = true;
    callback(err, stream as Duplex);
  };
}

function openTunnel(
  proxyText: string,
  secure: boolean,
  tlsOptions: TunnelTlsOptions,
  options: ConnectionOptions,
  done: (err: Error | null, stream?: Duplex) => void,
  timeoutMs?: number,
): void {
  let proxy: URL;
  let authorization: string | undefined;
  try {
    proxy = parseProxyUrl(proxyText);
    authorization = proxyAuthorization(proxy);
  } catch (err) {
    done(err as Error);
    return;
  }
  const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
  const port = Number(options.port) || (secure ? 443 : 80);
  const target = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  const label = proxyLabel(proxy);
  const tlsSettings: tls.ConnectionOptions = { ...tlsOptions };
  for (const key of TLS_KEYS) if (options[key] !== undefined) Object.assign(tlsSettings, { [key]: options[key] });

  const signal = options[TUNNEL_SIGNAL] ?? tunnelSignalScope.getStore();
  if (signal?.aborted) {
    done(Object.assign(new Error(`the tunnel to ${target} through proxy ${label} was cancelled`), { code: 'ABORT_ERR' }));
    return;
  }
  const headers: http.OutgoingHttpHeaders = { host: target, ...(authorization ? { 'proxy-authorization': authorization } : {}) };
  const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
  const viaTls = proxy.protocol === 'https:';
  const connect = (viaTls ? https : http).request({
    method: 'CONNECT',
    host: proxyHost,
    port: Number(proxy.port) || (viaTls ? 443 : 80),
    path: target,
    headers,
    agent: false,
    // The proxy's own name (none for an IP), not the CONNECT's Host header Node would take.
    ...(viaTls ? { ...tlsSettings, ALPNProtocols: ['http/1.1'], servername: net.isIP(proxyHost) ? '' : proxyHost } : {}),
  });

  // Until the request has its socket; from then on destroying the request destroys the tunnel.
  const onAbort = () => {
    clearTimeout(timer);
    connect.destroy();
    done(Object.assign(new Error(`the tunnel to ${target} through proxy ${label} was cancelled`), { code: 'ABORT_ERR' }));
  };
  // The connect limit runs through the CONNECT and, for https, the TLS handshake in the tunnel. A
  // request from http-fetch (it passes its own signal) is timed by http-fetch's own limit instead.
  if (options[TUNNEL_SIGNAL]) timeoutMs = undefined;
  let tlsSocket: tls.TLSSocket | undefined;
  const timedOut = () =>
    Object.assign(new Error(`the tunnel to ${target} through proxy ${label} did not connect within ${timeoutMs} ms`), { name: 'TimeoutError', code: 'UND_ERR_CONNECT_TIMEOUT' });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          if (tlsSocket) tlsSocket.destroy(timedOut());
          else {
            connect.destroy();
            finish(timedOut());
          }
        }, timeoutMs).unref();
  const finish = (err: Error | null, stream?: Duplex) => {
    signal?.removeEventListener('abort', onAbort);
    if (err || !tlsSocket) clearTimeout(timer);
    done(err, stream);
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  connect.once('connect', (res: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      socket.destroy();
      // The status rides along: retry-fetch.ts does not retry a refusal that retrying cannot change (407, 403).
      const refused = new Error(`proxy ${label} refused the tunnel to ${target}: ${status} ${oneLine(res.statusMessage ?? '')}`.trimEnd());
      finish(Object.assign(refused, { code: PROXY_REFUSED, status, ...(retryableStatus(status) ? { $retryable: {} } : {}) }));
      return;
    }
    if (head.length) socket.unshift(head);
    if (!secure) {
      finish(null, socket);
      return;
    }
    // The request gets the socket while TLS is still handshaking (as https.Agent hands it over);
    // a certificate that does not verify errors it. No SNI for an IP literal; the certificate is
    // checked against the name, or the IP, the request was for.
    const servername = net.isIP(host) ? undefined : options.servername || host;
    const secured = tls.connect({ ...tlsSettings, socket, host, ...(servername ? { servername } : {}), ALPNProtocols: ['http/1.1'] });
    tlsSocket = secured;
    // Destroying the TLS socket (an abort mid-handshake, a failed certificate) closes the tunnel.
    secured.once('close', () => {
      clearTimeout(timer);
      socket.destroy();
    });
    secured.once('secureConnect', () => clearTimeout(timer));
    finish(null, secured);
  });
  connect.once('error', (err: NodeJS.ErrnoException) => {
    const message =
      err.code === 'ECONNRESET' && /hang up/.test(err.message)
        ? `proxy ${label} closed the connection without answering the CONNECT to ${target}`
        : `the tunnel to ${target} through proxy ${label} failed: ${oneLine(err.message)}`;
    finish(Object.assign(new Error(message), { code: err.code }));
  });
  connect.end();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
