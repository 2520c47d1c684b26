/**
 * The one place Keen asks image-size for an image's sides. image-size reads headers through a
 * DataView over the input's whole ArrayBuffer, so for a Node Buffer cut from the shared pool (any
 * small `Buffer.from(base64)`) a short or damaged image is "measured" from whatever bytes follow it
 * in the pool: sides that change with what else the process allocated. Measured here, the bytes
 * get an ArrayBuffer of their own, and a header that runs past their end throws instead.
 */
import { createRequire } from 'node:module';
import type * as ImageSize from 'image-size';

let imageSize: typeof ImageSize.imageSize | undefined;

/** The sides (and type) image-size reads from `bytes`; throws for a type it cannot read. image-size loads at the first call. */
export function measureImage(bytes: Uint8Array): { width?: number; height?: number; type?: string } {
  imageSize ??= (createRequire(import.meta.url)('image-size') as typeof ImageSize).imageSize;
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  return imageSize(own);
}
