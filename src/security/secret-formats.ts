/**
 * Well-known credential formats (API keys, tokens, JWTs, `Bearer …`, URL userinfo, secret query
 * parameters) and the pure function that replaces them with `[REDACTED]`. A leaf with no imports:
 * the tools use it to redact output BEFORE they cap it (so a token cut at the cap cannot leak half
 * of itself), and `src/transcript/redact.ts` builds the store's redaction on it.
 */

export const REDACTED = '[REDACTED]';

/** Well-known credential formats, redacted wherever they appear. */
const FORMATS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g, // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…)
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g, // JWTs
];
/** What a value in each of the formats above starts with (a stream holds back a word ending in the start of one). */
export const FORMAT_MARKERS: readonly string[] = 'sk- ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ AKIA ASIA AIza xoxa- xoxb- xoxp- xoxo- xoxs- xoxr- eyJ'.split(' ');
/** `Bearer <token>`: the word stays, the token goes. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi;
/** `https://user:secret@host`: the credentials in a URL. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@'"]+@/gi;
/** `?key=…`, `&access_token=…`: credentials in a query string. */
const QUERY_SECRET = /([?&](?:api[_-]?key|key|token|access_token|auth|signature|sig|password)=)[^&\s#'"]+/gi;

/** True when `text` may hold a credential in a known format (cheap pre-check). */
export function mayHoldFormat(text: string): boolean {
  return /sk-|gh[pousr]_|github_pat_|AKIA|ASIA|AIza|xox|eyJ|bearer|:\/\/|[?&][a-z_-]+=/i.test(text);
}

/** `text` with every value in a known credential format replaced by `[REDACTED]` (pure). */
export function redactFormats(text: string): string {
  if (!mayHoldFormat(text)) return text;
  let out = text;
  for (const re of FORMATS) out = out.replace(re, REDACTED);
  out = out.replace(BEARER, `$1${REDACTED}`);
  out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
  out = out.replace(QUERY_SECRET, `$1${REDACTED}`);
  return out;
}
