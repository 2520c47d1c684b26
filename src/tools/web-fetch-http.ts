import { sdkFetch } from '../net/http-fetch.js';

export type FetchOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'refused'; status: number; contentType: string }
  | { kind: 'body'; status: number; contentType: string; text: string; truncated: boolean };

/**
 * One GET without following redirects, with the providers' fetch (node:http; HTTP_PROXY,
 * HTTPS_PROXY and NO_PROXY honoured through a CONNECT tunnel). A body whose type `isText` refuses is not read; otherwise
 * it is read up to `maxBytes` (then the connection is dropped) and decoded with the charset the
 * server names (UTF-8 otherwise).
 */
export async function fetchText(url: URL, signal: AbortSignal, maxBytes: number, isText: (type: string) => boolean): Promise<FetchOutcome> {
  const res = await sdkFetch(process.env)(url, {
    method: 'GET',
    redirect: 'manual',
    signal,
    headers: { 'user-agent': 'keen-web-fetch', accept: 'text/html, text/markdown, text/plain, application/json, */*;q=0.5' },
  });
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    await res.body?.cancel().catch(() => undefined);
    return { kind: 'redirect', location };
  }
  const contentType = res.headers.get('content-type') ?? '';
  if (res.status < 400 && !isText(contentType)) {
    await res.body?.cancel().catch(() => undefined);
    return { kind: 'refused', status: res.status, contentType };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = res.body?.getReader();
  for (let r = await reader?.read(); reader && r && !r.done; r = await reader.read()) {
    if (size + r.value.length > maxBytes) {
      chunks.push(r.value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(r.value);
    size += r.value.length;
  }
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  return { kind: 'body', status: res.status, contentType, text: decode(Buffer.concat(chunks), charset), truncated };
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
