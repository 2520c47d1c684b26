/**
 * The `Response` http-fetch.ts hands back, in plain JavaScript (why not Node's own: fetch-headers.ts
 * — it would load undici before the first request). What the SDKs and Keen read is here:
 * status, ok, statusText, headers, url, redirected, the streaming web `body`, `bodyUsed`, `text`,
 * `json`, `arrayBuffer`, `bytes`, `blob`, `clone`. `formData` (nothing of Keen's asks) goes
 * through Node's own Response. Code Keen does not bundle (MCP's SDK, Genkit) gets a real Response
 * from {@link toWebResponse}, so its `instanceof Response` checks hold.
 */
import { FetchHeaders } from './fetch-headers.js';

export interface FetchResponseInit {
  status: number;
  statusText: string;
  headers: FetchHeaders;
  url: string;
  redirected: boolean;
}

export class FetchResponse implements Response {
  readonly type: ResponseType = 'basic';
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: boolean;
  #body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
  #consumed = false;

  constructor(body: ReadableStream<Uint8Array<ArrayBuffer>> | null, init: FetchResponseInit) {
    this.#body = body;
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.url = init.url;
    this.redirected = init.redirected;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#body;
  }

  /**
   * Read through a method, or a reader holds the stream. (Node's says "disturbed": a reader that
   * was released after a read counts there, not here; nothing Keen or the SDKs do tells them apart.)
   */
  get bodyUsed(): boolean {
    return this.#consumed || (this.#body?.locked ?? false);
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.#consumed = true;
    if (!this.#body) return new Uint8Array(0);
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    const reader = this.#body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    // Always a copy of its own: a chunk may be a view into zlib's output buffer or Node's pool.
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }

  async formData(): Promise<FormData> {
    return toWebResponse(this).formData();
  }

  /** A second response over the same body (the stream is teed, as fetch's clone does). */
  clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    let other: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;
    if (this.#body) [this.#body, other] = this.#body.tee();
    const { status, statusText, url, redirected } = this;
    return new FetchResponse(other, { status, statusText, url, redirected, headers: new FetchHeaders(this.headers) });
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }
}

/**
 * Node's own Response with the same status, headers, url and body (taken over, not copied). A
 * status `Response` refuses (outside 200–599: LinkedIn answers bots 999) is carried as fetch does.
 */
export function toWebResponse(res: Response): Response {
  if (!(res instanceof FetchResponse)) return res;
  const odd = res.status < 200 || res.status > 599;
  const noBody = res.status === 204 || res.status === 205 || res.status === 304;
  const web = new Response(noBody ? null : res.body, { status: odd ? 599 : res.status, statusText: res.statusText, headers: [...res.headers] });
  if (odd) Object.defineProperties(web, { status: { value: res.status }, ok: { value: false } });
  Object.defineProperties(web, { url: { value: res.url }, redirected: { value: res.redirected } });
  return web;
}
