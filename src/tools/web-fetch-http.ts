import { EnvHttpProxyAgent, request } from 'undici';

/** One proxy-aware agent per process: honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY. */
let agent: EnvHttpProxyAgent | undefined;

export type FetchOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'refused'; status: number; contentType: string }
  | { kind: 'body'; status: number; contentType: string; text: string; truncated: boolean };

/**
 * One GET without following redirects. A body whose type `isText` refuses is not read; otherwise
 * it is read up to `maxBytes` (then the connection is dropped) and decoded with the charset the
 * server names (UTF-8 otherwise).
 */
export async function fetchText(url: URL, signal: AbortSignal, maxBytes: number, isText: (type: string) => boolean): Promise<FetchOutcome> {
  agent ??= new EnvHttpProxyAgent();
  const res = await request(url, {
    method: 'GET',
    dispatcher: agent,
    signal,
    headers: { 'user-agent': 'keen-web-fetch', accept: 'text/html, text/markdown, text/plain, application/json, */*;q=0.5' },
  });
  const header = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v[0] : (v ?? '');
  };
  // Dropping a body must not surface as an unhandled 'error' event.
  res.body.on('error', () => undefined);
  if (res.statusCode >= 300 && res.statusCode < 400 && header('location')) {
    res.body.destroy();
    return { kind: 'redirect', location: header('location') };
  }
  const contentType = header('content-type');
  if (res.statusCode < 400 && !isText(contentType)) {
    res.body.destroy();
    return { kind: 'refused', status: res.statusCode, contentType };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    if (size + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      res.body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  return { kind: 'body', status: res.statusCode, contentType, text: decode(Buffer.concat(chunks), charset), truncated };
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
