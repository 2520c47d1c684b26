/**
 * The one table of failure signs shared by every provider's error mapping: what a context
 * overflow says, and what a broken connection looks like. Each `*-errors.ts` adds only its own
 * service's codes and wording.
 */

/** Phrases the services use when the prompt does not fit the model's context window. */
const CONTEXT_OVERFLOW =
  /prompt is too long|input is too long|too many (input )?tokens|context (window|length)|maximum context length|context_length_exceeded|exceeds? (the )?(maximum|model's)( context)?|input length and `?max_tokens`? exceed|input token count.*exceeds|exceeds the maximum number of tokens/i;

/** Error codes (Responses, Chat Completions) that mean the context window is full. */
const CONTEXT_OVERFLOW_CODES = new Set(['context_length_exceeded', 'string_above_max_length']);

/** Socket-level failure codes: the connection broke, the request was not wrong. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Messages of a broken connection, as undici, Node streams and the SDKs word them. */
export const NETWORK_TEXT =
  /terminated|socket hang up|socket|other side closed|fetch failed|premature close|network|error reading from the stream|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|timed? ?out|truncated/i;

export function isContextOverflow(text: string, code?: string): boolean {
  return (code !== undefined && CONTEXT_OVERFLOW_CODES.has(code)) || CONTEXT_OVERFLOW.test(text);
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  cause?: unknown;
}

/** True when `err` (or one of its causes) is a broken connection rather than a refusal. */
export function isNetworkFailure(err: unknown): boolean {
  for (let cur: unknown = err, depth = 0; cur && typeof cur === 'object' && depth < 5; depth++) {
    const c = cur as ErrorLike;
    if (c.code && NETWORK_CODES.has(c.code)) return true;
    // undici reports a body cut short as `TypeError: terminated` (cause: "other side closed").
    if (c.name === 'TypeError' && c.message === 'terminated') return true;
    if (c.name === 'SocketError' || c.name === 'TimeoutError') return true;
    if (c.message && NETWORK_TEXT.test(c.message)) return true;
    cur = c.cause;
  }
  return false;
}

/**
 * The tail of a one-line error for a redirect the transport did not follow (to another host: the
 * API key would go with it; src/net/http-fetch.ts), or undefined when `status` is none.
 */
export function redirectNotFollowed(status: number | undefined, headers: unknown, from?: string): string | undefined {
  if (status === undefined || status < 300 || status > 399) return undefined;
  const location = headerOf(headers, 'location');
  if (!location) return undefined;
  let why = 'the API key would go to another host';
  try {
    const to = new URL(location, from);
    if (from && to.host === new URL(from).host) why = `it changes the address to ${to.protocol.replace(':', '')}`;
  } catch {
    // not a URL: say what it said
  }
  return `redirected the request to ${location}, which Keen does not follow (${why}); if that server is the right one, point the base URL at it`;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (headers && typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = headers && typeof headers === 'object' ? (headers as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
