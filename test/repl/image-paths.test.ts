/**
 * Which images a submitted message attaches: the forms terminals paste a dragged file in, `@`
 * mentions by name or by magic bytes, and the one-line refusals (a text file named like an image,
 * a binary that is no image).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandMentions, pastedImagePaths } from '../../src/repl/input/mentions.js';
import { replayItems } from '../../src/repl/replay.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { png } from '../kit/png-bytes.js';

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

describe('pasted image paths', () => {
  it('reads plain, quoted, backslash-escaped, ~ and file:// paths; ignores relative paths and other files', () => {
    expect(pastedImagePaths('/home/me/a.png')).toEqual(['/home/me/a.png']);
    expect(pastedImagePaths("look '/Users/me/Screen Shot 1.png' now")).toEqual(['/Users/me/Screen Shot 1.png']);
    expect(pastedImagePaths('"/home/me/x y.JPG"')).toEqual(['/home/me/x y.JPG']);
    expect(pastedImagePaths('/Users/me/Screen\\ Shot\\ 2.webp /home/me/b.gif')).toEqual(['/Users/me/Screen Shot 2.webp', '/home/me/b.gif']);
    expect(pastedImagePaths('~/Desktop/c.jpeg and file:///home/me/d.png')).toEqual(['~/Desktop/c.jpeg', 'file:///home/me/d.png']);
    expect(pastedImagePaths('shot.png /home/me/notes.txt @/home/me/e.png')).toEqual([]);
  });
});

describe('images in expandMentions', () => {
  it('attaches a pasted path and an @ mention (also by magic bytes), refuses a fake .png and keeps a binary refusal', () => {
    ws = tempWorkspace({ 'fake.png': 'not pixels\n' });
    const outside = path.join(path.dirname(ws.cwd), 'drag me.png');
    fs.writeFileSync(outside, png(3, 2));
    fs.writeFileSync(path.join(ws.cwd, 'noext'), png(5, 5));
    fs.writeFileSync(path.join(ws.cwd, 'blob.bin'), Buffer.from([1, 0, 2, 0, 3]));
    const out = expandMentions(`'${outside}' @noext @fake.png @blob.bin`, ws.cwd);
    expect(out.images.map((i) => i.label)).toEqual([`${outside} (PNG, ${png(3, 2).length} B, 3×2)`, `@noext (PNG, ${png(5, 5).length} B, 5×5)`]);
    expect(out.images[0].image).toEqual({ media_type: 'image/png', data: png(3, 2).toString('base64') });
    expect(out.problems).toEqual(['@fake.png is not a PNG, JPEG, GIF or WebP image (by its first bytes); not attached', '@blob.bin looks binary; not attached']);
    // The text is sent as typed: the model also sees the names.
    expect(out.text).toBe(`'${outside}' @noext @fake.png @blob.bin`);
  });

  it("an image named inside the folder is judged where it really is: a repository's symlink out is refused, the path itself is not", () => {
    ws = tempWorkspace();
    const outside = path.join(path.dirname(ws.cwd), 'private.png');
    fs.writeFileSync(outside, png(4, 4));
    fs.symlinkSync(outside, path.join(ws.cwd, 'diagram.png'));
    const out = expandMentions(`@diagram.png and @${outside}`, ws.cwd);
    expect(out.problems).toEqual([`@diagram.png leads outside the working directory (${fs.realpathSync(outside)}); not attached`]);
    expect(out.images.map((i) => i.label)).toEqual([`@${outside} (PNG, ${png(4, 4).length} B, 4×4)`]);
  });

  it('a pasted path that names no file is left as text', () => {
    ws = tempWorkspace();
    const out = expandMentions('see /nowhere/x.png', ws.cwd);
    expect(out).toMatchObject({ images: [], problems: [] });
  });
});

describe('a resumed session shows the images it sent', () => {
  it('each image of a stored user message is listed under it, by type and size', () => {
    const data = Buffer.alloc(3072).toString('base64');
    const items = replayItems([
      { seq: 2, ts: '2026-12-01T00:00:00.000Z', kind: 'user_message', message: { role: 'user', content: 'what is this', images: [{ media_type: 'image/png', data }] } },
    ]);
    expect(items).toEqual([{ kind: 'user', text: 'what is this', attachments: ['image (PNG, 3.0 KB)'] }]);
  });
});
