/**
 * The request-level image limits of the model APIs, and the one rule that keeps a request within
 * them: the NEWEST images are sent, each older one is replaced on the wire by a one-line
 * placeholder naming what was left out and why.
 *
 * Each image of a session is fine alone (the tool layer caps every image, see
 * src/tools/mcp/result-map.ts; so does the user's attach, src/tools/image-file.ts), but the APIs also limit a whole request: the image count, the
 * request's bytes, and (Anthropic) a smaller side limit once a request holds many images. A long
 * session accumulates images until every later request would fail. The stored history is never
 * touched: the wires apply the cut to the request they build, so the transcript stays lossless.
 *
 * The cut moves in steps, for prompt caching: a cut that moved by one image per new image would
 * change the request from the oldest image on every turn (a full cache write instead of a read).
 * The number of images left out is rounded UP to a multiple of the API's `step`, so it — and the
 * request's prefix — stays the same while up to `step` new images arrive, and changes once per
 * `step`. The price is sending up to `step - 1` fewer (old) images than would fit. The cut depends
 * only on the images themselves (their order, sizes and dimensions), so the same history always
 * gives the same request.
 */
import { measureImage } from './image-measure.js';

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
  /**
   * Images are left out in multiples of this many (1: exactly as many as needed), so the kept
   * set and the request prefix change once per `step` new images, not with each one.
   */
  step: number;
}

const MB = 1_000_000;

/**
 * Every wire's limits, in one place. Values are what the pages cited state; where a page gives no
 * request total, or the total is shared with the text, the byte budget is a conservative share
 * of the request size (docs/providers.md, "Request-level image limits"). Steps: a quarter of a
 * small count limit (Bedrock: 5 of 20, so 16–20 are kept), a tenth of a large one (Anthropic 10,
 * Responses 50): the cache is written again once per step instead of every turn, for at most
 * `step - 1` old images fewer than fit.
 */
export const IMAGE_LIMITS: Readonly<Record<ImageWire, ImageLimits>> = {
  // https://platform.claude.com/docs/en/build-with-claude/vision — up to 600 images per API request
  // (100 for models with a 200k-token context window: the smaller is used), more than 20 images
  // → each at most 2000×2000 px; request size 32 MB (images get 24 of it).
  anthropic: { maxImages: 100, maxBytes: 24 * MB, manyImages: { over: 20, maxSide: 2000 }, step: 10 },
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html — up to 20
  // images, each ≤ 3.75 MB and 8000 px. No request total is stated for Converse; Claude's
  // InvokeModel body is at most 20 MB (userguide/model-parameters-anthropic-claude-messages-
  // request-response.html), so images get 15 MB of base64.
  bedrock: { maxImages: 20, maxBytes: 15 * MB, step: 5 },
  // https://platform.openai.com/docs/guides/images-vision — up to 500 images and 50 MB of image
  // bytes per request (counted here as the data URLs sent, the stricter reading). Codex too.
  'openai-responses': { maxImages: 500, maxBytes: 50 * MB, step: 50 },
  // Same page. Applied to user-message images: a Chat Completions tool message carries text only.
  'openai-chat': { maxImages: 500, maxBytes: 50 * MB, step: 50 },
  // https://ai.google.dev/gemini-api/docs/image-understanding — at most 3,000 images per prompt,
  // inline data within a 20 MB request. Applied to user-message images: Genkit tool results carry text only.
  gemini: { maxImages: 3000, maxBytes: 15 * MB, step: 300 },
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
  /** How many of the newest images would fit the limits; the step may send fewer (`total - omitted`). */
  fit: number;
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

/**
 * `[image omitted from this request: <why>; the <n> oldest left out (the cut moves in steps of
 * <step>)]`, the steps named when `n` is a whole number of them. It names no total: a text that
 * changed with each new image would change the request prefix every turn, which the step avoids.
 */
function omittedPlaceholder(limits: ImageLimits, reason: CutReason, omitted: number, step: number): string {
  const which = omitted === 1 ? 'the oldest' : `the ${omitted} oldest`;
  const steps = step > 1 && omitted % step === 0 ? ` (the cut moves in steps of ${step})` : '';
  return `[image omitted from this request: ${why(limits, reason)}; ${which} left out${steps}]`;
}

/**
 * How many of the oldest images to leave out. `images` are in request order (oldest first).
 *
 * First the longest run of newest images that fits: walking from the newest, an image is kept
 * while the count, the running bytes and — once more than `manyImages.over` are kept — every kept
 * image's side stay within the limits; each limit only gets stricter as the run grows, so the
 * first image that does not fit ends it. An image whose side cannot be read counts as too large
 * for the many-images rule. Sides are read only when that rule applies.
 *
 * Then the step: the `need` images before that run are rounded up to a multiple of
 * `limits.step`, whichever limit ended the run, so the cut only moves when `need` crosses a step
 * boundary. Two bounds: at least half of the images that fit are kept (when the bytes fit fewer
 * than two steps of images, a whole step would leave out most of them), and a newest image that
 * alone is too large leaves every image out, as without the step. Leaving out more of the oldest
 * never breaks a limit, so the result always fits, and it never leaves a hole in the middle.
 * As a conversation grows (images only appended) `omitted` never decreases.
 *
 * Pure: the same images give the same cut; nothing is mutated.
 */
export function planImageCut(limits: ImageLimits, images: readonly BudgetImage[]): ImageCut {
  const total = images.length;
  const many = limits.manyImages;
  let bytes = 0;
  let fit = 0;
  let reason: CutReason | undefined;
  for (let i = total - 1; i >= 0; i--) {
    const count = fit + 1;
    if (count > limits.maxImages) reason = 'count';
    else if (bytes + images[i].size > limits.maxBytes) reason = 'bytes';
    else if (many && count > many.over && !sidesFit(images, i, count === many.over + 1 ? total : i + 1, many.maxSide)) reason = 'side';
    if (reason) break;
    bytes += images[i].size;
    fit = count;
  }
  const need = total - fit;
  if (!reason || need === 0) return { total, omitted: 0, fit };
  const step = Math.max(1, Math.floor(limits.step));
  const omitted = fit === 0 ? total : Math.min(Math.ceil(need / step) * step, total - Math.ceil(fit / 2));
  return { total, omitted, fit, reason, placeholder: omittedPlaceholder(limits, reason, omitted, step) };
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

/** The image types the APIs take; image-size also "reads" 750 kB of zeros as a 0×0 TGA. */
const MEASURED_TYPES: ReadonlySet<string> = new Set(['png', 'jpg', 'gif', 'webp']);

function longestSide(key: object, data: string | Uint8Array): number | undefined {
  if (sides.has(key)) return sides.get(key);
  let side: number | undefined;
  try {
    const { width = 0, height = 0, type = '' } = measureImage(typeof data === 'string' ? Buffer.from(data, 'base64') : data);
    side = MEASURED_TYPES.has(type) && width > 0 && height > 0 ? Math.max(width, height) : undefined;
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
