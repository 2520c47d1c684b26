/**
 * The one credential scrubber. It knows the actual values this process sends (provider keys,
 * `ANTHROPIC_AUTH_TOKEN`, Codex access and refresh tokens, AWS secret and session keys, MCP
 * server header and env values), registered as they are read, and removes each of them, in
 * every form it can take in text, from anything that leaves Keen: error lines, stderr, JSON and
 * stream-json output, transcripts, recordings, the REPL screen. Values in well-known credential
 * formats go too (`redactFormats`).
 *
 * Forms searched: the value as is, JSON-escaped (a `"` or `\` in it, and `/` written `\/`),
 * percent-encoded (a query string or form body). Base64 forms are not searched in free text: a value inside a longer base64 run has no
 * fixed spelling (three alignments, ragged edges), and Keen itself never sends a credential
 * base64-encoded beyond what is configured verbatim. Base64 payloads Keen writes (recordings) are
 * decoded, scrubbed and encoded again (`scrubBase64`). A text cut short with `…` right after the
 * first part of a credential loses that part too.
 */

import { REDACTED, redactFormats } from './secret-formats.js';

/** Shorter values are not treated as credentials: replacing them would mangle ordinary text. */
export const MIN_CREDENTIAL_CHARS = 8;

const known = new Set<string>();
let forms: string[] | undefined;

/** Registers credential values Keen sends; shorter than MIN_CREDENTIAL_CHARS or empty are ignored. */
export function addCredentials(values: Iterable<string | undefined | null>): void {
  for (const raw of values) {
    const value = raw?.trim();
    if (!value || value.length < MIN_CREDENTIAL_CHARS || known.has(value)) continue;
    known.add(value);
    forms = undefined;
  }
}

/** The registered values (for tests and for code that passes them on, longest first). */
export function knownCredentials(): string[] {
  return [...known].sort((a, b) => b.length - a.length);
}

/** Every spelling of `value` that text may hold, longest first (pure). */
export function credentialForms(value: string): string[] {
  const out = new Set<string>([value]);
  const json = JSON.stringify(value).slice(1, -1);
  out.add(json);
  out.add(json.replaceAll('/', '\\/'));
  out.add(encodeURIComponent(value));
  return [...out].sort((a, b) => b.length - a.length);
}

/** Every spelling of every registered value, longest first (what a stream must hold back). */
export function knownCredentialForms(): readonly string[] {
  return allForms([]);
}

function allForms(extra: readonly string[]): string[] {
  forms ??= knownCredentials().flatMap(credentialForms);
  if (extra.length === 0) return forms;
  const more = extra.filter((v) => v.length >= MIN_CREDENTIAL_CHARS && !known.has(v)).flatMap(credentialForms);
  return more.length ? [...more, ...forms].sort((a, b) => b.length - a.length) : forms;
}

/**
 * `text` with every registered credential (and every value of `extra`) in any of its forms, and
 * every value in a known credential format, replaced by `[REDACTED]` (pure but for the registry).
 */
export function scrubText(text: string, extra: readonly string[] = []): string {
  const all = allForms(extra);
  let out = text;
  for (const form of all) {
    if (out.includes(form)) out = out.replaceAll(form, REDACTED);
  }
  if (out.includes(ELLIPSIS)) out = scrubCutTails(out, all);
  return redactFormats(out);
}

const ELLIPSIS = '…';

/**
 * A line capped to fit (`oneLine` ends it with `…`) may end in the first part of a credential:
 * that part is replaced too, when it is at least MIN_CREDENTIAL_CHARS long.
 */
function scrubCutTails(text: string, forms: readonly string[]): string {
  let out = text;
  for (let at = out.indexOf(ELLIPSIS); at !== -1; at = out.indexOf(ELLIPSIS, at + 1)) {
    for (const form of forms) {
      const head = form.slice(0, MIN_CREDENTIAL_CHARS);
      const start = out.lastIndexOf(head, at - MIN_CREDENTIAL_CHARS);
      if (start === -1 || at - start >= form.length) continue;
      if (form.startsWith(out.slice(start, at))) {
        out = `${out.slice(0, start)}${REDACTED}${out.slice(at)}`;
        at = start + REDACTED.length;
        break;
      }
    }
  }
  return out;
}

/**
 * `base64` decoded, scrubbed and encoded again when it held a credential; else unchanged. The
 * bytes are searched one character per byte (latin1), so every other byte stays as it was; a
 * binary stream whose frames carried a credential is no longer byte-exact (credentials win).
 */
export function scrubBase64(base64: string, extra: readonly string[] = []): string {
  if (!base64) return base64;
  const text = Buffer.from(base64, 'base64').toString('latin1');
  const clean = scrubText(text, extra);
  return clean === text ? base64 : Buffer.from(clean, 'latin1').toString('base64');
}

/** Forgets every registered value (tests only). */
export function clearCredentials(): void {
  known.clear();
  forms = undefined;
}
