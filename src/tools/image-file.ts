/**
 * Images the user attaches (`@shot.png`, a pasted or dragged path, `keen -p --image`, an ACP
 * image block), read and checked once, before anything reaches a model. The path is the user's,
 * but what it points at is not trusted: it is resolved to its real path (a symlink into a
 * credential store is refused like the file tools refuse it), stat'ed before any byte is read (a
 * file over the limit is refused unread), and the bytes must be a PNG, JPEG, GIF or WebP by their
 * magic numbers, within the sides the APIs take. The limits are the tool images' (see
 * src/tools/mcp/result-map.ts): an image over them would fail every later request of the session.
 */
import { type Stats, realpathSync, statSync, openSync, constants, fstatSync, readSync, closeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ToolResultImage } from '../core/message.js';
import { measureImage } from '../tokens/image-measure.js';
import { storeHolding } from './credential-stores.js';
import { realStores } from './permissions/credential-guard.js';

/** The largest image attached: Bedrock's per-image limit, the strictest of the APIs (= MCP_IMAGE_MAX_BYTES). */
export const IMAGE_MAX_BYTES = 3.75 * 1024 * 1024;
/** The longest side the APIs take (Anthropic: 8,000 px; = MCP_IMAGE_MAX_SIDE). */
export const IMAGE_MAX_SIDE = 8000;
/** Names that look like an image file (what a pasted path must end with to be read at all). */
export const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

/** An image read and checked: its block, and what to show for it. */
export interface LoadedImage {
  image: ToolResultImage;
  /** `shot.png (PNG, 1.2 KB, 640×480)`. */
  label: string;
}

/** Read and checked, or why not: one line naming the file (the caller says what follows). */
export type ImageResult = LoadedImage | { problem: string };

/** The image type of `bytes` by its magic numbers, or undefined. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return 'image/gif';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(2).replace(/\.?0+$/, '')} MB`;
}

/*
 * Keen limits images but does not resize them (no image library): a refusal names the exact limit
 * and what the user can do before attaching the image again.
 */
const overBytes = (name: string, size: number) =>
  `${name} is ${formatBytes(size)}, over the ${formatBytes(IMAGE_MAX_BYTES)} (${IMAGE_MAX_BYTES.toLocaleString('en-US')} bytes) the model APIs accept; Keen does not resize images, so scale it down or save it as JPEG first`;
const overSide = (name: string, width: number, height: number) =>
  `${name} is ${width}×${height} px, longer than the ${IMAGE_MAX_SIDE} px a side the model APIs accept; Keen does not resize images, so scale it to at most ${IMAGE_MAX_SIDE}×${IMAGE_MAX_SIDE} px first`;

/**
 * Checks `bytes` as an image named `name` (declared type `declared`, when a client gave one):
 * a known type by magic numbers (and the declared one, if any), within the byte and side limits.
 */
export function checkImageBytes(name: string, bytes: Uint8Array, declared?: string): ImageResult {
  const type = sniffImageType(bytes);
  if (!type) return { problem: `${name} is not a PNG, JPEG, GIF or WebP image (by its first bytes)` };
  if (declared !== undefined && declared !== type) return { problem: `${name} is declared ${declared} but its bytes are ${type}` };
  if (bytes.length > IMAGE_MAX_BYTES) return { problem: overBytes(name, bytes.length) };
  let width = 0;
  let height = 0;
  try {
    ({ width = 0, height = 0 } = measureImage(bytes));
  } catch {
    return { problem: `${name} could not be read as ${type} (damaged?)` };
  }
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) {
    return { problem: overSide(name, width, height) };
  }
  const short = type.slice('image/'.length).toUpperCase();
  return {
    image: { media_type: type, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') },
    label: `${name} (${short}, ${formatBytes(bytes.length)}, ${width}×${height})`,
  };
}

/** `~/x` → the home folder's x; `file:///x` → /x (what some terminals paste for a dropped file). */
export function expandUserPath(p: string, home = homedir()): string {
  if (p === '~' || p.startsWith('~/')) return join(home, p.slice(1));
  if (p.startsWith('file://')) {
    try {
      return decodeURIComponent(new URL(p).pathname);
    } catch {
      return p;
    }
  }
  return p;
}

/**
 * Reads the image at `input` (relative to `cwd`; `~` and `file://` understood), shown as `shown`.
 * Never throws: a missing, unreadable, oversized or non-image file, or one in a credential
 * store, is a one-line problem naming it.
 */
export function loadImageFile(input: string, cwd: string, env: NodeJS.ProcessEnv = process.env, shown = input): ImageResult {
  const abs = resolve(cwd, expandUserPath(input, env.HOME || homedir()));
  let real: string;
  let st: Stats;
  try {
    real = realpathSync(abs);
    st = statSync(real);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: `${shown}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? 'error'})`}` };
  }
  if (storeHolding(real, realStores(env.HOME || homedir(), env))) {
    return { problem: `${shown} is in a credential store (${real})` };
  }
  if (!st.isFile()) return { problem: `${shown} is not a file` };
  if (st.size > IMAGE_MAX_BYTES) return { problem: overBytes(shown, st.size) };
  let bytes: Buffer;
  try {
    bytes = readCapped(real, IMAGE_MAX_BYTES + 1);
  } catch (err) {
    return { problem: `${shown} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  return checkImageBytes(shown, bytes);
}

/**
 * At most `max` bytes of `file` (fewer if it is shorter): a file that grew after its stat is still
 * not read whole, and one swapped for a FIFO or a device after its stat is refused, not waited on
 * (opened non-blocking, judged by the opened descriptor). Throws an error whose `code` names why.
 */
export function readCapped(file: string, max: number): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error('not a file'), { code: 'not a regular file' });
    const buf = Buffer.alloc(max);
    let got = 0;
    while (got < max) {
      const n = readSync(fd, buf, got, max - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
