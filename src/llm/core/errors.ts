/** The kinds a provider failure is mapped to. The loop and the UI decide by kind, never by text. */
export type ErrorKind = 'context_window' | 'auth' | 'rate_limit' | 'network' | 'cancelled' | 'other';

export interface LlmError {
  kind: ErrorKind;
  /** One line a user can read: what failed and, where known, what to do. */
  message: string;
  status?: number;
}

export function llmError(kind: ErrorKind, message: string, status?: number): LlmError {
  return status === undefined ? { kind, message: oneLine(message) } : { kind, message: oneLine(message), status };
}

/** Collapse whitespace and cap the length so an error always fits on one terminal line. */
export function oneLine(text: string, max = 400): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** True when an error came from an AbortSignal firing. */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  if (!err || typeof err !== 'object') return false;
  const name = (err as { name?: string }).name ?? '';
  return name === 'AbortError' || name === 'APIUserAbortError' || /abort/i.test(name);
}
