/**
 * An image over the limits in a REPL message (`@shot.png`, or a pasted or dragged path): Keen
 * limits images and never resizes them, so the one-line notice names the exact limit and what to
 * do, and nothing is attached. The file over the byte limit is sparse: refused on its stat.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandMentions } from '../../src/repl/input/mentions.js';
import { png } from '../kit/png-bytes.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

describe('an image over the limits', () => {
  it('@big.png (over 3.75 MB) and a pasted path to a 9000 px tall one: one notice each with the limit and what to do', () => {
    ws = tempWorkspace({ 'tall.png': png(200, 9000) });
    const big = path.join(ws.cwd, 'big.png');
    fs.writeFileSync(big, png(64, 48));
    fs.truncateSync(big, 6 * 1024 * 1024);
    const tall = path.join(ws.cwd, 'tall.png');

    const out = expandMentions(`compare @big.png with '${tall}'`, ws.cwd);

    expect(out.images).toEqual([]);
    expect(out.problems).toEqual([
      `${tall} is 200×9000 px, longer than the 8000 px a side the model APIs accept; Keen does not resize images, so scale it to at most 8000×8000 px first; not attached`,
      '@big.png is 6 MB, over the 3.75 MB (3,932,160 bytes) the model APIs accept; Keen does not resize images, so scale it down or save it as JPEG first; not attached',
    ]);
  });
});
