/**
 * What a screenshot of the exported page must be to count as one: a PNG by its signature, the
 * window's size, and a picture (many colours, most of them not the page background), not a blank
 * or failed capture. Decodes the 8-bit RGB / RGBA PNGs Chromium writes with node:zlib only.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngSummary {
  width: number;
  height: number;
  /** Distinct pixel values seen (counting stops at 4096). */
  colours: number;
  /** Share of pixels that differ from the top-left one (the page background). */
  inked: number;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Reads and decodes `file`; throws an Error saying why it is not a PNG Chromium would write. */
export function summarizePng(file: string): PngSummary {
  const png = fs.readFileSync(file);
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error(`${file} is not a PNG (signature)`);
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error(`${file}: only 8-bit, non-interlaced PNGs are read here`);
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0;
      if (!channels) throw new Error(`${file}: colour type ${data[9]} is not RGB or RGBA`);
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`${file}: image data is ${raw.length} bytes, not ${height} rows of ${stride + 1}`);
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predicted === undefined) throw new Error(`${file}: row ${y} has filter ${filter}`);
      pixels[y * stride + x] = (v + predicted) & 0xff;
    }
  }
  const seen = new Set<number>();
  const background = pixels.readUIntBE(0, channels);
  let inked = 0;
  for (let p = 0; p < pixels.length; p += channels) {
    const value = pixels.readUIntBE(p, channels);
    if (value !== background) inked++;
    if (seen.size < 4096) seen.add(value);
  }
  return { width, height, colours: seen.size, inked: inked / (width * height) };
}
