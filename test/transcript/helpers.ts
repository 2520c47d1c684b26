import type { Message } from '../../src/core/message.js';
import type { NewRecord } from '../../src/transcript/records.js';
import { SessionStore, type CreateSessionOptions } from '../../src/transcript/store.js';

export const CWD = '/projects/demo app';

export function createStore(home: string, extra: Partial<CreateSessionOptions> = {}): Promise<SessionStore> {
  return SessionStore.create(home, { cwd: CWD, provider: 'anthropic', model: 'claude-test', keenVersion: '0.1.0', ...extra });
}

export function user(text: string): NewRecord {
  return { kind: 'user_message', message: { role: 'user', content: text } };
}

export const USAGE = { input: 10, output: 5, cache_read: 0, cache_write: 0 };

/** An assistant turn whose visible text is `text` and whose messages are `messages` (default: one reply). */
export function turn(text: string, messages?: Message[], checkpoint = false): NewRecord {
  const record: Extract<NewRecord, { kind: 'assistant_turn' }> = {
    kind: 'assistant_turn',
    text,
    tools: [],
    usage: USAGE,
    messages: messages ?? [{ role: 'assistant', content: text }],
  };
  if (checkpoint) record.checkpoint = true;
  return record;
}

export function compaction(mode: 'manual' | 'auto', summary: string): NewRecord {
  return {
    kind: 'compaction_applied',
    mode,
    status: mode === 'manual' ? 'Context compacted.' : '',
    messages: [{ role: 'user', content: summary }],
  };
}
