import * as z from 'zod';
import { once } from '../core/lazy.js';
import { HeadTailBuffer } from './output-cap.js';
import { canonicalHost } from './permissions/fetch-host.js';
import { decide } from './permissions/decide.js';
import type { ExplainingGate } from './permissions/gates.js';
import { defineTool, ToolError } from './registry.js';
import type { PermissionRequest, ToolContext } from './types.js';

/** Bytes read from one response at most; the rest is not downloaded. */
export const WEB_FETCH_MAX_BYTES = 1_000_000;
/** Time for the whole fetch, redirects included. */
export const WEB_FETCH_TIMEOUT_MS = 30_000;
export const WEB_FETCH_MAX_REDIRECTS = 10;
const HEAD_CHARS = 20_000;
const TAIL_CHARS = 10_000;

const TEXTUAL =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-javascript|xhtml\+xml|rss\+xml|atom\+xml|ld\+json|x-ndjson|yaml|x-yaml|toml|csv|markdown)\b)|\+(json|xml)\b/i;

const schema = once(() =>
  z.strictObject({
    url: z.string().describe('The http:// or https:// URL to fetch'),
    prompt: z.string().optional().describe('What you are looking for on the page (shown with the result)'),
  }),
);

/** The host a URL names, or a ToolError for a URL that web_fetch does not fetch. */
export function parseFetchUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolError(`web_fetch: "${raw}" is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError(`web_fetch: only http and https URLs are fetched, not ${url.protocol}`);
  // Named without its userinfo: the password is not repeated into results and cards.
  if (url.username || url.password) throw new ToolError(`web_fetch: a URL with a user name or password is not fetched (${url.origin}).`);
  return url;
}

/** `fetch failed (Parse Error: Header overflow)`: fetch's message with the cause that says why, on one line. */
function failure(err: unknown): string {
  const { message, cause } = err as Error;
  const why = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return `${message}${why}`.replace(/\s+/g, ' ');
}

/** `text/html; charset=utf-8` → `text/html`; no type at all counts as binary. */
function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase() || 'application/octet-stream';
}

/**
 * Whether a redirect from `from` to `to` is followed: the same host (any port or scheme: domain
 * rules name hosts), or its `www.` twin when the rules allow the twin without asking (a deny or
 * ask rule may name one twin and not the other). Anything else is reported to the model, whose
 * next call is then asked about.
 */
function follows(from: URL, to: URL, ctx: Pick<ToolContext, 'permissions' | 'cwd'>): boolean {
  const a = canonicalHost(from.hostname);
  const b = canonicalHost(to.hostname);
  if (a === b) return true;
  const strip = (h: string) => h.replace(/^www\./, '');
  if (strip(a) !== strip(b)) return false;
  const policy = (ctx.permissions as ExplainingGate).policy;
  const request: PermissionRequest = { tool: 'web_fetch', summary: `fetch ${to.href}`, detail: to.href, domain: b, cwd: ctx.cwd };
  return policy !== undefined && decide(request, policy).verdict === 'allow';
}

export const webFetchTool = defineTool({
  name: 'web_fetch',
  description:
    'Fetch a web page or text file by URL (HTTP GET) and return it as Markdown (HTML is converted). ' +
    `Reads at most ${WEB_FETCH_MAX_BYTES / 1_000_000} MB within ${WEB_FETCH_TIMEOUT_MS / 1000} s; binary types (images, PDFs, archives) are refused. ` +
    'A redirect to another host is reported instead of followed: fetch that URL if you still want it. Asks permission per domain.',
  schema,
  mutating: true,
  describe: ({ url }) => {
    const parsed = parseFetchUrl(url);
    return { tool: 'web_fetch', summary: `fetch ${parsed.href}`, detail: parsed.href, domain: canonicalHost(parsed.hostname) };
  },
  async run({ url, prompt }, ctx) {
    const start = parseFetchUrl(url);
    const { fetchText } = await import('./web-fetch-http.js');
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(WEB_FETCH_TIMEOUT_MS)]);
    let current = start;
    for (let hop = 0; ; hop++) {
      const res = await fetchText(current, signal, WEB_FETCH_MAX_BYTES, (t) => TEXTUAL.test(mediaType(t))).catch((err: unknown) => {
        if (ctx.signal.aborted) throw err;
        if (signal.aborted) throw new ToolError(`web_fetch: ${current.href} did not answer within ${WEB_FETCH_TIMEOUT_MS / 1000} s.`);
        throw new ToolError(`web_fetch: could not fetch ${current.href}: ${failure(err)}`);
      });
      if (res.kind === 'redirect') {
        let next: URL;
        try {
          next = new URL(res.location, current);
        } catch {
          throw new ToolError(`web_fetch: ${current.href} redirects to "${res.location}", which is not a URL.`);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new ToolError(`web_fetch: ${current.href} redirects to ${next.protocol} (${next.href}); only http and https URLs are fetched.`);
        }
        if (!follows(current, next, ctx)) {
          return `${current.href} redirects to another host: ${next.href}\nCall web_fetch with that URL to fetch it.`;
        }
        if (hop + 1 >= WEB_FETCH_MAX_REDIRECTS) throw new ToolError(`web_fetch: more than ${WEB_FETCH_MAX_REDIRECTS} redirects from ${start.href}.`);
        current = next;
        continue;
      }
      const type = mediaType(res.contentType);
      if (res.kind === 'refused') {
        throw new ToolError(`web_fetch: ${current.href} is ${type}, not text; web_fetch only returns text and HTML pages.`);
      }
      if (res.status >= 400) throw new ToolError(`web_fetch: ${current.href} answered HTTP ${res.status}.`);
      let body = res.text;
      if (type === 'text/html' || type === 'application/xhtml+xml') {
        const { htmlToMarkdown } = await import('./web-fetch-markdown.js');
        body = htmlToMarkdown(body);
      }
      const buffer = new HeadTailBuffer(HEAD_CHARS, TAIL_CHARS);
      buffer.push(body);
      const header = [
        `URL: ${current.href}${current.href !== start.href ? ` (redirected from ${start.href})` : ''}`,
        `Content-Type: ${type}`,
        ...(prompt ? [`Looking for: ${prompt}`] : []),
        ...(res.truncated ? [`Note: only the first ${WEB_FETCH_MAX_BYTES} bytes were read; the rest of the page is not shown.`] : []),
      ];
      return `${header.join('\n')}\n\n${buffer.text()}`;
    }
  },
});
