/**
 * An automatic compaction in the middle of a turn about a screenshot: the user's request is
 * summarised away, and its `<last_user_message>` carries the request's images with it, so the
 * model still sees what it was asked about; twice in one turn, they stay. A manual compaction
 * (between turns) drops them with the messages it summarises, as a tool result's images.
 */
import { describe, expect, it } from 'vitest';
import { buildReplacement, prepareCompaction } from '../../src/compaction/compactor.js';
import { NO_EXTRAS } from '../../src/compaction/settings.js';
import { userMessage, type Message } from '../../src/core/message.js';
import { estimateMessage, estimateText } from '../../src/tokens/token-estimator.js';
import { pngBase64 } from '../kit/png-bytes.js';

const shot = { media_type: 'image/png', data: pngBase64(6, 6) };
const history: Message[] = [
  { role: 'system', content: 'SYS' },
  userMessage('what is wrong on this screen?', [shot]),
  { role: 'assistant', content: '', tool_calls: [{ id: 'a', name: 'read_file', args: '{}' }] },
  { role: 'tool', tool_call_id: 'a', name: 'read_file', content: 'x'.repeat(4000) },
];
const prepare = (h: Message[], mode: 'auto' | 'manual') => prepareCompaction({ history: h, mode, settings: NO_EXTRAS, countText: estimateText, countMessage: estimateMessage });

describe('the images of the latest request across a compaction', () => {
  it('auto: the summary message keeps them beside <last_user_message>, also at a second compaction', () => {
    const first = buildReplacement(prepare(history, 'auto'), 'FIRST');
    expect(first[1]).toMatchObject({ role: 'user', summary_level: 1, images: [shot] });
    expect(first[1].content).toContain('<last_user_message>\nwhat is wrong on this screen?\n</last_user_message>');
    const again = buildReplacement(prepare([...first, { role: 'assistant', content: 'still looking' }], 'auto'), 'MERGED');
    expect(again[1]).toMatchObject({ summary_level: 2, images: [shot] });
  });

  it('manual: no <last_user_message>, so no images', () => {
    const replacement = buildReplacement(prepare(history, 'manual'), 'SUMMARY');
    expect(replacement[1]).not.toHaveProperty('images');
  });
});
