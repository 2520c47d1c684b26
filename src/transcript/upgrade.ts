import { partsOf, providerOf, type Message } from '../core/message.js';
import type { SessionRecord } from './records.js';

/**
 * Upgrades a record read from any transcript format to the current one (format 2). Format-1
 * assistant messages get their ordered `parts` and `provider`, read as reasoning, text, tool
 * calls: exactly the order the release that wrote them sent on its next request, so a resumed
 * old session sends what it always sent. Records of a format-2 file come back unchanged (an
 * assistant message without parts is valid there and reads the same way, see `partsOf`).
 */
export function upgradeRecord(record: SessionRecord, format: number): SessionRecord {
  if (format >= 2) return record;
  if (record.kind !== 'assistant_turn' && record.kind !== 'compaction_applied') return record;
  if (!record.messages.some(needsUpgrade)) return record;
  return { ...record, messages: record.messages.map(upgradeMessage) };
}

function needsUpgrade(m: Message): boolean {
  return m.role === 'assistant' && m.parts === undefined;
}

/** A message in the current shape: format-1 assistant messages gain `parts` (and `provider`). */
function upgradeMessage(m: Message): Message {
  if (m.role !== 'assistant' || m.parts !== undefined) return m;
  const provider = providerOf(m);
  return { ...m, parts: partsOf(m), ...(provider !== undefined ? { provider } : {}) };
}
