/**
 * The one check every attached image passes (src/tools/image-file.ts): the four types the APIs
 * take, each by its magic bytes whatever its name, read with its sides; anything else, or a
 * declared type its bytes contradict, or sides past 8,000 px, is one line.
 */
import { describe, expect, it } from 'vitest';
import { checkImageBytes, IMAGE_MAX_BYTES } from '../../src/tools/image-file.js';
import { png } from '../kit/png-bytes.js';

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

describe('checkImageBytes', () => {
  it.each([
    ['png', png(3, 2), 'image/png', '3×2'],
    ['jpeg', JPEG, 'image/jpeg', '1×1'],
    ['gif', GIF, 'image/gif', '1×1'],
    ['webp', WEBP, 'image/webp', '1×1'],
  ])('%s: typed by its bytes, sides read', (_name, bytes, type, sides) => {
    const r = checkImageBytes('x', bytes);
    expect(r).toMatchObject({ image: { media_type: type, data: bytes.toString('base64') } });
    expect('label' in r && r.label).toContain(sides);
  });

  it('refuses other bytes, a contradicted declared type and sides past 8,000 px, in one line each', () => {
    expect(checkImageBytes('a.bmp', Buffer.from('BM\0\0\0\0'))).toEqual({ problem: 'a.bmp is not a PNG, JPEG, GIF or WebP image (by its first bytes)' });
    expect(checkImageBytes('image 1', GIF, 'image/png')).toEqual({ problem: 'image 1 is declared image/png but its bytes are image/gif' });
    expect(checkImageBytes('wide.png', png(9000, 1))).toEqual({
      problem: 'wide.png is 9000×1 px, longer than the 8000 px a side the model APIs accept; Keen does not resize images, so scale it to at most 8000×8000 px first',
    });
  });

  it('an image over the byte limit: the exact limit, and what to do since Keen does not resize', () => {
    expect(checkImageBytes('big.png', png(1, 1, 4 * 1024 * 1024))).toEqual({
      problem: 'big.png is 4 MB, over the 3.75 MB (3,932,160 bytes) the model APIs accept; Keen does not resize images, so scale it down or save it as JPEG first',
    });
    // An image of exactly the limit is attached as it is.
    expect(checkImageBytes('fits.png', png(1, 1, IMAGE_MAX_BYTES))).toMatchObject({ image: { media_type: 'image/png' } });
  });
});
