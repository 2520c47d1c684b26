/**
 * image-size reads headers through a DataView over the input's whole ArrayBuffer: a short image
 * cut from a bigger buffer (Node's Buffer pool, for any small `Buffer.from(base64)`) would be
 * measured from the bytes after it. Keen's one measuring function gives it only the image.
 */
import { describe, expect, it } from 'vitest';
import { measureImage } from '../../src/tokens/image-measure.js';
import { png } from '../kit/png-bytes.js';

describe('measureImage', () => {
  it('a damaged 3-byte image is not measured from the memory after it', () => {
    const backing = new Uint8Array(64);
    backing.set([0x3b, 0x85, 0xa8, 0x01], 12); // what a TGA header would hold as its sides
    expect(() => measureImage(backing.subarray(0, 3))).toThrow();
  });

  it('an image inside a bigger buffer is measured from its own bytes', () => {
    const image = png(7, 5);
    const backing = new Uint8Array(image.length + 100);
    backing.set(image, 50);
    expect(measureImage(backing.subarray(50, 50 + image.length))).toMatchObject({ width: 7, height: 5, type: 'png' });
  });
});
