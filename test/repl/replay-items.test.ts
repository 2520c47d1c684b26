/**
 * The items a resumed session replays (src/repl/replay.ts): the newest `limit` of them, and one
 * muted first line saying what was left out — counted when the whole transcript was read, not
 * counted when a long one was read from its end (open-session.ts SHOWN_BUDGET).
 */
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/transcript/records.js';
import { EARLIER_NOT_READ, replayItems } from '../../src/repl/replay.js';

const usage = { input: 1, output: 1, cache_read: 0, cache_write: 0 };
const ts = '2026-12-01T00:00:00.000Z';

function records(turns: number, firstSeq = 2): SessionRecord[] {
  const out: SessionRecord[] = [];
  let seq = firstSeq;
  for (let i = 1; i <= turns; i++) {
    out.push({ seq: seq++, ts, kind: 'user_message', message: { role: 'user', content: `prompt ${i}` } });
    out.push({ seq: seq++, ts, kind: 'assistant_turn', text: `answer ${i}`, tools: [], usage, messages: [{ role: 'assistant', content: `answer ${i}` }] });
  }
  return out;
}

/** Each item's text: a prompt or notice as is, an answer (a markdown item) by the text it holds. */
const texts = (items: ReturnType<typeof replayItems>) =>
  items.map((i) => (i.kind === 'notice' || i.kind === 'user' ? i.text : (/answer \d+/.exec(JSON.stringify(i))?.[0] ?? i.kind)));

describe('replayItems', () => {
  it('a whole transcript within the limit is replayed whole, with no first line', () => {
    const items = replayItems(records(3), 100);
    expect(items).toHaveLength(6);
    expect(texts(items)[0]).toBe('prompt 1');
  });

  it('over the limit: the newest items, after a line counting the rest', () => {
    const items = replayItems(records(10), 4);
    expect(texts(items)).toEqual(['… 16 earlier items not shown', 'prompt 9', 'answer 9', 'prompt 10', 'answer 10']);
  });

  it('a transcript read from its end says that earlier conversation is not shown, without a count', () => {
    const items = replayItems(records(3, 500), 100, false);
    expect(items[0]).toEqual({ kind: 'notice', text: EARLIER_NOT_READ, tone: 'muted' });
    expect(texts(items).slice(1)).toEqual(['prompt 1', 'answer 1', 'prompt 2', 'answer 2', 'prompt 3', 'answer 3']);
    expect(texts(replayItems(records(10, 500), 4, false))).toEqual([EARLIER_NOT_READ, 'prompt 9', 'answer 9', 'prompt 10', 'answer 10']);
  });
});
