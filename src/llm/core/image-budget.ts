/**
 * The request-level image limits of the model APIs, and the one rule that keeps a request within
 * them: the NEWEST images that fit are sent, each older one is replaced on the wire by a one-line
 * placeholder naming what was left out and why.
 *
 * Each image of a session is fine alone (the tool layer caps every image, see
 * src/tools/mcp/result-map.ts), but the APIs also limit a whole request: the image count, the
 * request's bytes, and (Anthropic) a smaller side limit once a request holds many images. A long
 * session accumulates images until every later request would fail. The stored history is never
 * touched: the wires apply the cut to the request they build, so the transcript stays lossless.
 *
 * The cut depends only on the images themselves (their order, sizes and dimensions), so the same
 * history always gives the same request and prompt caching keeps working; each time the cut
 * moves (a new image pushes the oldest kept one out) the cached prefix changes once, from the
 * oldest image on.
 */
import { imageSize } from 'image-size';

/** The wire APIs that have an entry in {@link IMAGE_LIMITS}. */
export type ImageWire = 'anthropic' | 'bedrock' | 'openai-responses' | 'openai-chat' | 'gemini';

/** One API's request-level image limits. */
export interface ImageLimits {
  /** Most images one request may carry. */
  maxImages: number;
  /**
   * Most bytes all images of one request may take as sent (base64 text; a data URL counts whole),
   * below the API's request size so the text, tools and system prompt still fit.
   */
  maxBytes: number;
  /** A tighter side limit that holds once a request carries more than `over` images. */
  manyImages?: { over: number; maxSide: number };
}

const MB = 1_000_000;

/**
 * Every wire's limits, in one place. Values are what the pages cited state; where a page gives no
 * request total, or the total is shared with the text, the byte budget is a conservative share
 * of the request size (docs/providers.md, "Request-level image limits").
 */
export const IMAGE_LIMITS: Readonly<Record<ImageWire, ImageLimits>> = {
  // https://platform.claude.com/docs/en/build-with-claude/vision — up to 600 images per API request
  // (100 for models with a 200k-token context window: the smaller is used), more than 20 images
  // → each at most 2000×2000 px; request size 32 MB (images get 24 of it).
  anthropic: { maxImages: 100, maxBytes: 24 * MB, manyImages: { over: 20, maxSide: 2000 } },
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html — up to 20
  // images, each ≤ 3.75 MB and 8000 px. No request total is stated for Converse; Claude's
  // InvokeModel body is at most 20 MB (userguide/model-parameters-anthropic-claude-messages-
  // request-response.html), so images get 15 MB of base64.
  bedrock: { maxImages: 20, maxBytes: 15 * MB },
  // https://platform.openai.com/docs/guides/images-vision — up to 500 images and 50 MB of image
  // bytes per request (counted here as the data URLs sent, the stricter reading). Codex too.
  'openai-responses': { maxImages: 500, maxBytes: 50 * MB },
  // Same page. Not applied yet: a Chat Completions tool message carries text only.
  'openai-chat': { maxImages: 500, maxBytes: 50 * MB },
  // https://ai.google.dev/gemini-api/docs/image-understanding — at most 3,000 images per prompt,
  // inline data within a 20 MB request. Not applied yet: the Genkit wire sends no images.
  gemini: { maxImages: 3000, maxBytes: 15 * MB },
};

/** What the budget reads of one image: its size as sent and, only when needed, its longest side. */
export interface BudgetImage {
  /** Bytes on the wire (base64 length). */
  size: number;
  /** The longest side in px; undefined when the bytes are not an image image-size reads. */
  side(): number | undefined;
}

/** Which limit the kept images stopped at. */
export type CutReason = 'count' | 'bytes' | 'side';

/** The decision for one request: the `omitted` oldest of `total` images are left out. */
export interface ImageCut {
  total: number;
  omitted: number;
  reason?: CutReason;
  /** The one-line text that replaces each omitted image (set when `omitted` > 0). */
  placeholder?: string;
}

function formatSize(bytes: number): string {
  return bytes >= MB ? `${Number((bytes / MB).toFixed(1))} MB` : `${Number((bytes / 1000).toFixed(1))} KB`;
}

function why(limits: ImageLimits, reason: CutReason): string {
  if (reason === 'count') return `the API accepts at most ${limits.maxImages} images per request`;
  if (reason === 'bytes') return `the images of one request may take at most ${formatSize(limits.maxBytes)}`;
  const many = limits.manyImages!;
  return `with more than ${many.over} images in a request the API takes none over ${many.maxSide}×${many.maxSide} px`;
}

/** `[image omitted from this request: <why>; <total> in this conversation, the <n> oldest left out]` */
function omittedPlaceholder(limits: ImageLimits, reason: CutReason, total: number, omitted: number): string {
  const which = omitted === 1 ? 'the oldest' : `the ${omitted} oldest`;
  return `[image omitted from this request: ${why(limits, reason)}; ${total} in this conversation, ${which} left out]`;
}

/**
 * The longest run of newest images that fits `limits`, as the number of oldest ones to leave out.
 * `images` are in request order (oldest first). Walking from the newest, an image is kept while
 * the count, the running bytes and — once more than `manyImages.over` are kept — every kept
 * image's side stay within the limits; each limit only gets stricter as the run grows, so the
 * first image that does not fit ends it. An image whose side cannot be read counts as too large
 * for the many-images rule. Sides are read only when that rule applies. Pure: the same images
 * give the same cut; nothing is mutated.
 */
export function planImageCut(limits: ImageLimits, images: readonly BudgetImage[]): ImageCut {
  const total = images.length;
  const many = limits.manyImages;
  let bytes = 0;
  let kept = 0;
  let reason: CutReason | undefined;
  for (let i = total - 1; i >= 0; i--) {
    const count = kept + 1;
    if (count > limits.maxImages) reason = 'count';
    else if (bytes + images[i].size > limits.maxBytes) reason = 'bytes';
    else if (many && count > many.over && !sidesFit(images, i, count === many.over + 1 ? total : i + 1, many.maxSide)) reason = 'side';
    if (reason) break;
    bytes += images[i].size;
    kept = count;
  }
  const omitted = total - kept;
  if (!reason || omitted === 0) return { total, omitted: 0 };
  return { total, omitted, reason, placeholder: omittedPlaceholder(limits, reason, total, omitted) };
}

/** Every image of `images[from, to)` has a readable side of at most `maxSide`. */
function sidesFit(images: readonly BudgetImage[], from: number, to: number, maxSide: number): boolean {
  for (let i = from; i < to; i++) {
    const side = images[i].side();
    if (side === undefined || side > maxSide) return false;
  }
  return true;
}

/** Longest sides by image block: a block is measured once, however many requests send it. */
const sides = new WeakMap<object, number | undefined>();

function longestSide(key: object, data: string | Uint8Array): number | undefined {
  if (sides.has(key)) return sides.get(key);
  let side: number | undefined;
  try {
    const { width, height } = imageSize(typeof data === 'string' ? Buffer.from(data, 'base64') : data);
    side = Math.max(width, height);
  } catch {
    side = undefined;
  }
  sides.set(key, side);
  return side;
}

/**
 * {@link planImageCut} over a wire's own image blocks, in request order. `dataOf` gives a block's
 * base64 text (its length is its size on the wire) or raw bytes (which the SDK sends as base64).
 * Dimensions are read from the header by image-size and cached by block object, so an image in
 * the native history is decoded at most once.
 */
export function cutImages<T extends object>(limits: ImageLimits, blocks: readonly T[], dataOf: (block: T) => string | Uint8Array): ImageCut {
  const images = blocks.map((block): BudgetImage => {
    const data = dataOf(block);
    return {
      size: typeof data === 'string' ? data.length : Math.ceil(data.length / 3) * 4,
      side: () => longestSide(block, data),
    };
  });
  return planImageCut(limits, images);
}
