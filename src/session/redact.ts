/**
 * Defence in depth: no secret from the environment (or handed in from config) is ever written
 * into a transcript, even if a tool echoed it or the model repeated it.
 */

export const REDACTED = '[REDACTED]';

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;
const MIN_SECRET_CHARS = 8;

/**
 * The values of environment variables whose names look secret (KEY, TOKEN, SECRET, PASSWORD,
 * CREDENTIAL) and that are at least 8 characters long, plus `extra` (e.g. keys from config).
 * Longest first, so a secret that contains another is replaced whole.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env, extra: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_CHARS && SECRET_NAME.test(name)) found.add(value);
  }
  for (const value of extra) if (value.length >= MIN_SECRET_CHARS) found.add(value);
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * A deep copy of `value` with every occurrence of every secret, in every string (keys included),
 * replaced by `[REDACTED]`. Values without secrets are returned as they are (no copy).
 */
export function redactSecrets<T>(value: T, secrets: readonly string[] = secretValues()): T {
  if (secrets.length === 0) return value;
  return redactValue(value, secrets) as T;
}

function redactString(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.replaceAll(s, REDACTED);
  return out;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactString(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactString(k, secrets)] = redactValue(v, secrets);
    return out;
  }
  return value;
}

/**
 * Serialise one record as a JSONL line (with its newline) with secrets redacted. Fast path: the
 * record is stringified once and only walked when a secret's JSON form appears in the text.
 */
export function redactedJsonLine(record: unknown, secrets: readonly string[]): string {
  const json = JSON.stringify(record);
  for (const s of secrets) {
    if (json.includes(JSON.stringify(s).slice(1, -1))) {
      return `${JSON.stringify(redactValue(record, secrets))}\n`;
    }
  }
  return `${json}\n`;
}
