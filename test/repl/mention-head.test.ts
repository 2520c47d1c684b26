/**
 * An `@` mention of a huge file reads only the head it attaches: a sparse file of 3 GiB (past
 * what one Node read can return) is attached cut, with its size, instead of a raw Node error.
 */
import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_MAX_BYTES } from '../../src/repl/input/attachment-limit.js';
import { expandMentions } from '../../src/repl/input/mentions.js';
import { tempDir } from '../kit/temp-dir.js';

describe('@ mention of a huge file', () => {
  it('attaches the head of a 3 GiB sparse file with a cut note', () => {
    const dir = tempDir('keen-mention-');
    const file = path.join(dir, 'huge.log');
    writeFileSync(file, 'log line\n'.repeat(40_000));
    const size = 3 * 1024 ** 3;
    truncateSync(file, size);
    const out = expandMentions('look at @huge.log', dir);
    expect(out.problems).toEqual([]);
    expect(out.attachments).toEqual([{ path: 'huge.log', lines: expect.any(Number), truncated: true }]);
    expect(out.text).toContain(`[truncated: the file has ${size} bytes; only the first ${ATTACHMENT_MAX_BYTES} are attached]`);
    expect(out.text.length).toBeLessThan(ATTACHMENT_MAX_BYTES + 1000);
  });
});
