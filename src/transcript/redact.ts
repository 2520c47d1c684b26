/**
 * Defence in depth: Keen's own credentials, and values in well-known credential formats, are
 * never written into a transcript, an input history, an error line or JSON output, even if a tool
 * echoed them or the model repeated them. Ordinary values (paths, names, URLs without
 * credentials) are never touched: a variable called `PROJECT_KEY_DIR` holding the working
 * directory must not turn every path in a transcript into `[REDACTED]`.
 */

import { scrubText } from '../security/scrubber.js';
import { REDACTED } from '../security/secret-formats.js';

export { REDACTED };

/** The credentials Keen itself reads from the environment. */
export const KEEN_CREDENTIAL_VARS: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
];

/**
 * Names that hold a credential by convention (`NPM_TOKEN`, `STRIPE_SECRET_KEY`, `DB_PASSWORD`):
 * the name must END in the credential word, so `PROJECT_KEY_DIR` or `TOKENIZER_PATH` do not count.
 */
const CREDENTIAL_NAME = /(^|_)(API_?KEY|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?)$/i;
const MIN_SECRET_CHARS = 8;
/** A conventional name is not enough: the value must look like a token, not a path or a sentence. */
const MIN_NAMED_VALUE_CHARS = 12;

/**
 * A value shaped like a token: at least `minChars` long, one word, not a path or a URL (so
 * `PATH`-like values and ordinary settings are never taken for credentials). `letterAndDigit`
 * also asks for both, for a value judged by its shape alone whatever its name (MCP config).
 */
export function looksLikeToken(value: string, opts: { minChars: number; letterAndDigit?: boolean }): boolean {
  if (value.length < opts.minChars || /\s/.test(value) || /^[/~.]/.test(value) || value.includes('://')) return false;
  return !opts.letterAndDigit || (/[A-Za-z]/.test(value) && /\d/.test(value));
}

/**
 * The exact values to redact: Keen's own credential variables, variables with a credential name
 * whose value looks like a token, and `extra` (keys named by config `apiKeyEnv`, tokens from
 * Keen's auth files). Longest first, so a secret that contains another is replaced whole.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env, extra: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const name of KEEN_CREDENTIAL_VARS) {
    const value = env[name];
    if (value && value.length >= MIN_SECRET_CHARS) found.add(value);
  }
  for (const [name, value] of Object.entries(env)) {
    if (value && CREDENTIAL_NAME.test(name) && looksLikeToken(value, { minChars: MIN_NAMED_VALUE_CHARS })) found.add(value);
  }
  for (const value of extra) if (value.length >= MIN_SECRET_CHARS) found.add(value);
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every secret value (`secrets` and the credentials registered with the one scrubber,
 * src/security/scrubber.ts, in every spelling it searches) and every known credential format
 * replaced by `[REDACTED]`.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return scrubText(text, secrets);
}

/**
 * A deep copy of `value` with every string (keys included) passed through `redactText`. Values
 * without anything to redact are returned as they are (no copy).
 */
export function redactSecrets<T>(value: T, secrets: readonly string[] = secretValues()): T {
  return redactValue(value, secrets) as T;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactText(k, secrets)] = redactValue(v, secrets);
    return out;
  }
  return value;
}

/**
 * Serialise one record as a JSONL line (with its newline) with secrets redacted. Fast path: the
 * record is stringified once and walked only when a secret's JSON form, or something in a known
 * credential format, appears in the text.
 */
export function redactedJsonLine(record: unknown, secrets: readonly string[]): string {
  const json = JSON.stringify(record);
  const hit = redactText(json, secrets) !== json;
  return hit ? `${JSON.stringify(redactValue(record, secrets))}\n` : `${json}\n`;
}
