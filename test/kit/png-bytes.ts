/**
 * Real PNG files of chosen dimensions for the image tests: signature, IHDR (1-bit greyscale),
 * an optional `tEXt` chunk that pads the file to a chosen size, the deflated all-black rows and
 * IEND, each chunk with its CRC. Any decoder reads them; image-size reads the IHDR.
 */
import zlib from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width`×`height` PNG; with `padTo`, a `tEXt` chunk makes the file at least that many bytes. */
export function png(width: number, height: number, padTo = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  const parts = [SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))];
  const size = parts.reduce((n, p) => n + p.length, 0);
  if (padTo > size) parts.splice(2, 0, chunk('tEXt', Buffer.from(`Comment\0${'x'.repeat(Math.max(0, padTo - size - 20))}`, 'latin1')));
  return Buffer.concat(parts);
}

/** The same PNG as base64, as a tool result carries it. */
export function pngBase64(width: number, height: number, padTo = 0): string {
  return png(width, height, padTo).toString('base64');
}
