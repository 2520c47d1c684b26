/**
 * The request-level image budget, pure: the newest images that fit the count, the byte total and
 * the many-images side rule stay; the older ones are named by one placeholder line; the same
 * images always give the same cut; nothing given is changed. Images are real PNGs (png-bytes.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Message as BedrockMessage } from '@aws-sdk/client-bedrock-runtime';
import { imageSize } from 'image-size';
import { describe, expect, it } from 'vitest';
import { cutImages, IMAGE_LIMITS, planImageCut, type BudgetImage, type ImageLimits } from '../../src/tokens/image-budget.js';
import { withinImageLimits as anthropicLimits, type NativeMessage } from '../../src/providers/anthropic-wire.js';
import { withinImageLimits as converseLimits } from '../../src/providers/bedrock-wire.js';
import { withinImageLimits as responsesLimits } from '../../src/providers/openai-responses-items.js';
import { png, pngBase64 } from '../kit/png-bytes.js';

/** An image block as the wires hold one: base64 text. */
interface Block {
  data: string;
}

const blocks = (sides: number[]): Block[] => sides.map((w) => ({ data: pngBase64(w, 10) }));
const widthOf = (b: Block) => imageSize(Buffer.from(b.data, 'base64')).width;
const keptWidths = (all: Block[], omitted: number) => all.slice(omitted).map(widthOf);
/** Limits that only bind where a test says; step 1 (the raw run) unless it says otherwise. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const wide = (limits: Partial<ImageLimits>): ImageLimits => ({ maxImages: 1000, maxBytes: 1e9, step: 1, ...limits });

describe('planImageCut / cutImages', () => {
  it('png-bytes makes real PNGs of the chosen size and dimensions', () => {
    const file = png(2500, 40, 5000);
    expect(imageSize(file)).toMatchObject({ type: 'png', width: 2500, height: 40 });
    expect(file.length).toBe(5000);
  });

  it('the count limit keeps the newest images and names the oldest ones left out', () => {
    const all = blocks([101, 102, 103, 104, 105]);
    const cut = cutImages(wide({ maxImages: 3 }), all, (b) => b.data);
    expect(cut).toEqual({
      total: 5,
      omitted: 2,
      fit: 3,
      reason: 'count',
      placeholder: '[image omitted from this request: the API accepts at most 3 images per request; the 2 oldest left out]',
    });
    expect(keptWidths(all, cut.omitted)).toEqual([103, 104, 105]);
  });

  it('one over: "the oldest"; within the limits nothing is left out', () => {
    const all = blocks([1, 2, 3, 4]);
    expect(cutImages(wide({ maxImages: 3 }), all, (b) => b.data).placeholder).toBe(
      '[image omitted from this request: the API accepts at most 3 images per request; the oldest left out]',
    );
    expect(cutImages(wide({ maxImages: 4 }), all, (b) => b.data)).toEqual({ total: 4, omitted: 0, fit: 4 });
    expect(cutImages(IMAGE_LIMITS.bedrock, [], (b: Block) => b.data)).toEqual({ total: 0, omitted: 0, fit: 0 });
  });

  it('the byte limit counts the base64 as sent and stops at the first image that does not fit', () => {
    // 3,000-byte PNGs are 4,000 base64 characters; 10,000 takes two.
    const all = [600, 3000, 3000, 3000].map((size, i) => ({ data: pngBase64(100 + i, 10, size) }));
    expect(all.map((b) => b.data.length)).toEqual([800, 4000, 4000, 4000]);
    const cut = cutImages(wide({ maxBytes: 10_000 }), all, (b) => b.data);
    // The small oldest image would still fit, but the newest run ends at the first that does not: never a hole.
    expect(cut).toMatchObject({ total: 4, omitted: 2, reason: 'bytes' });
    expect(cut.placeholder).toBe('[image omitted from this request: the images of one request may take at most 10 KB; the 2 oldest left out]');
    expect(keptWidths(all, 2)).toEqual([102, 103]);
    // Raw bytes (Bedrock) count as the base64 the SDK sends.
    const raw = all.map((b) => Buffer.from(b.data, 'base64'));
    expect(cutImages(wide({ maxBytes: 8000 }), raw, (b) => b)).toMatchObject({ omitted: 2, reason: 'bytes' });
    expect(cutImages(wide({ maxBytes: 7999 }), raw, (b) => b)).toMatchObject({ omitted: 3, reason: 'bytes' });
  });

  it('the byte limit is named in MB; a step is named when the images left out are a whole number of steps', () => {
    const cut = planImageCut(IMAGE_LIMITS.bedrock, [
      { size: 9_000_000, side: () => 10 },
      { size: 9_000_000, side: () => 10 },
    ]);
    // One fits, so one goes: the step never leaves out more than half of what fits.
    expect(cut).toMatchObject({ omitted: 1, fit: 1 });
    expect(cut.placeholder).toBe('[image omitted from this request: the images of one request may take at most 15 MB; the oldest left out]');
    // Ten needed out, a whole number of steps: the step is named.
    const twelve = Array.from({ length: 12 }, () => ({ size: 1_000_000, side: () => 10 }));
    expect(planImageCut({ ...IMAGE_LIMITS.bedrock, maxImages: 2 }, twelve).placeholder).toBe(
      '[image omitted from this request: the API accepts at most 2 images per request; the 10 oldest left out (the cut moves in steps of 5)]',
    );
  });

  it('more than 20 images: each kept one must be at most 2000 px a side, so the run ends at the first larger one', () => {
    // 24 images, the third oldest 2400 px wide: the newest 21 fit, the 22nd newest does not.
    const sides = Array.from({ length: 24 }, (_, i) => (i === 2 ? 2400 : 200 + i));
    const all = sides.map((w) => ({ data: pngBase64(w, 30) }));
    const raw = cutImages({ ...IMAGE_LIMITS.anthropic, step: 1 }, all, (b) => b.data);
    expect(raw).toMatchObject({ total: 24, omitted: 3, fit: 21, reason: 'side' });
    expect(keptWidths(all, 3)).toEqual(sides.slice(3));
    // Anthropic's step of 10: the 3 needed round up to 10, the newest 14 are sent.
    expect(cutImages(IMAGE_LIMITS.anthropic, all, (b) => b.data)).toEqual({
      total: 24,
      omitted: 10,
      fit: 21,
      reason: 'side',
      placeholder:
        '[image omitted from this request: with more than 20 images in a request the API takes none over 2000×2000 px; the 10 oldest left out (the cut moves in steps of 10)]',
    });
  });

  it('a large newest image keeps the request at 20 images or fewer; 20 or fewer large ones all go', () => {
    const sides = Array.from({ length: 22 }, (_, i) => (i === 21 ? 3000 : 300));
    const all = sides.map((w) => ({ data: pngBase64(w, 30) }));
    expect(cutImages({ ...IMAGE_LIMITS.anthropic, step: 1 }, all, (b) => b.data)).toMatchObject({ omitted: 2, fit: 20, reason: 'side' });
    expect(cutImages(IMAGE_LIMITS.anthropic, all, (b) => b.data)).toMatchObject({ omitted: 10, fit: 20, reason: 'side' });
    expect(cutImages(IMAGE_LIMITS.anthropic, all.slice(2), (b) => b.data)).toEqual({ total: 20, omitted: 0, fit: 20 });
  });

  it('sides are read only once a request holds more than 20 images; an unreadable one counts as too large', () => {
    let reads = 0;
    const image = (side: number | undefined): BudgetImage => ({
      size: 10,
      side: () => {
        reads++;
        return side;
      },
    });
    expect(
      planImageCut(
        IMAGE_LIMITS.anthropic,
        Array.from({ length: 20 }, () => image(5000)),
      ),
    ).toEqual({ total: 20, omitted: 0, fit: 20 });
    expect(reads).toBe(0);
    expect(
      planImageCut(
        IMAGE_LIMITS.bedrock,
        Array.from({ length: 20 }, () => image(undefined)),
      ).omitted,
    ).toBe(0);
    expect(reads).toBe(0);
    const unreadable = [image(undefined), ...Array.from({ length: 21 }, () => image(100))];
    expect(planImageCut(IMAGE_LIMITS.anthropic, unreadable)).toMatchObject({ omitted: 10, fit: 21, reason: 'side' });
    // The 21 newest read once each when the run passed 20, then the oldest: 22 reads, not 21².
    expect(reads).toBe(22);
    const notAnImage = [{ data: Buffer.from('no pixels here').toString('base64') }, ...blocks(Array.from({ length: 21 }, () => 50))];
    expect(cutImages({ ...IMAGE_LIMITS.anthropic, step: 1 }, notAnImage, (b) => b.data)).toMatchObject({ omitted: 1, reason: 'side' });
    // image-size reads 750 kB of zeros as a 0×0 TGA: that is no image the APIs take, not a small one.
    const zeros = [{ data: Buffer.alloc(750_000).toString('base64') }, ...blocks(Array.from({ length: 21 }, () => 50))];
    expect(cutImages({ ...IMAGE_LIMITS.anthropic, step: 1 }, zeros, (b) => b.data)).toMatchObject({ omitted: 1, reason: 'side' });
  });

  it('the same images give the same cut, and the input is left as it was', () => {
    const all = blocks(Array.from({ length: 25 }, (_, i) => 10 + i));
    const before = structuredClone(all);
    const a = cutImages(IMAGE_LIMITS.bedrock, all, (b) => b.data);
    const b = cutImages(IMAGE_LIMITS.bedrock, structuredClone(all), (x) => x.data);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ total: 25, omitted: 5 });
    expect(all).toEqual(before);
  });
});

// ---- the wires' request functions -------------------------------------------------------------

const anthropicHistory = (n: number): NativeMessage[] => {
  const messages: NativeMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'look' }] }];
  for (let i = 0; i < n; i++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'snap', input: {} }] });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `t${i}`,
          content: [
            { type: 'text', text: `shot ${i}` },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(100 + i, 10) } },
          ],
        },
      ],
    });
  }
  return messages;
};

describe('the wires apply the cut to the request only', () => {
  it('Anthropic: older image blocks become placeholder text blocks; the native history is unchanged', () => {
    const history = anthropicHistory(4);
    const before = structuredClone(history);
    const out = anthropicLimits(history, wide({ maxImages: 2 }));
    expect(history).toEqual(before);
    const placeholder = '[image omitted from this request: the API accepts at most 2 images per request; the 2 oldest left out]';
    expect((out[2].content[0] as any).content).toEqual([
      { type: 'text', text: 'shot 0' },
      { type: 'text', text: placeholder },
    ]);
    expect((out[6].content[0] as any).content[1].type).toBe('image');
    // Unchanged messages are the same objects; within the limits the history itself comes back.
    expect(out[0]).toBe(history[0]);
    expect(out[6]).toBe(history[6]);
    expect(anthropicLimits(history, wide({ maxImages: 4 }))).toBe(history);
    expect(JSON.stringify(anthropicLimits(structuredClone(history), wide({ maxImages: 2 })))).toBe(JSON.stringify(out));
  });

  it('Bedrock: older image blocks inside toolResult become text blocks; block counts and the history stay', () => {
    const history = Array.from({ length: 3 }, (_, i) => ({
      role: 'user' as const,
      content: [{ toolResult: { toolUseId: `t${i}`, content: [{ text: `shot ${i}` }, { image: { format: 'png' as const, source: { bytes: png(10 + i, 10) } } }] } }],
    }));
    const before = JSON.stringify(history);
    const out = converseLimits(history, wide({ maxImages: 1 }));
    expect(JSON.stringify(history)).toBe(before);
    expect(out[0].content?.[0].toolResult?.content).toEqual([{ text: 'shot 0' }, { text: expect.stringContaining('; the 2 oldest left out]') }]);
    expect(out[2]).toBe(history[2]);
    expect(out.map((m) => m.content?.length)).toEqual([1, 1, 1]);
  });

  it('Responses: older input_image parts become input_text parts; the input items stay', () => {
    const input = Array.from({ length: 3 }, (_, i) => ({
      type: 'function_call_output' as const,
      call_id: `c${i}`,
      output: [
        { type: 'input_text' as const, text: `shot ${i}` },
        { type: 'input_image' as const, image_url: `data:image/png;base64,${pngBase64(10 + i, 10)}` },
      ],
    }));
    const before = structuredClone(input);
    const out = responsesLimits(input, wide({ maxImages: 2 }));
    expect(input).toEqual(before);
    expect((out[0] as any).output[1]).toEqual({ type: 'input_text', text: expect.stringContaining('; the oldest left out]') });
    expect(out[1]).toBe(input[1]);
    expect(responsesLimits(input)).toBe(input);
  });
});

// ---- the cut moves in steps: a growing conversation keeps its request prefix ------------------

/** `[user text, (assistant tool_use, user tool_result with one image) × n]`, image i `data[i]`. */
const anthropicShots = (data: readonly string[]): NativeMessage[] => {
  const messages: NativeMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'watch' }] }];
  data.forEach((d, i) => {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'snap', input: {} }] });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `t${i}`,
          content: [
            { type: 'text', text: `shot ${i}` },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: d } },
          ],
        },
      ],
    });
  });
  return messages;
};
/** The message that holds image i in {@link anthropicShots} (and the Converse history below). */
const messageOfImage = (i: number) => 2 + 2 * i;

/** The first index where two requests' messages differ (the shorter length when one is the other's prefix). */
function firstDifference(a: readonly unknown[], b: readonly unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!isDeepStrictEqual(a[i], b[i])) return i;
  return n;
}

interface Turn {
  /** Images in the conversation at this turn. */
  images: number;
  /** Images the request sends. */
  sent: number;
  /** Where this request first differs from the previous turn's. */
  changedAt: number;
  /** The previous request's length: `changedAt` equal to it means the whole previous request is a prefix. */
  previousLength: number;
}

/** Sends a conversation that gains one image per turn, from 1 to `images.length`, through `wire`. */
function growing<M>(count: number, build: (n: number) => M[], wire: (messages: M[]) => readonly M[], sentIn: (messages: readonly M[]) => number): Turn[] {
  const turns: Turn[] = [];
  let previous: readonly M[] = [];
  for (let n = 1; n <= count; n++) {
    const request = wire(build(n));
    turns.push({ images: n, sent: sentIn(request), changedAt: firstDifference(previous, request), previousLength: previous.length });
    previous = request;
  }
  return turns;
}

const anthropicSent = (messages: readonly NativeMessage[]) =>
  messages.reduce(
    (n, m) => n + m.content.reduce((k, b) => k + (b.type === 'tool_result' && Array.isArray(b.content) ? b.content.filter((c) => c.type === 'image').length : 0), 0),
    0,
  );
/** The turns whose request does not start with the whole previous request. */
const moves = (turns: Turn[]) => turns.filter((t) => t.changedAt < t.previousLength);

describe('the cut moves in steps, so the request prefix stays cacheable', () => {
  it('count (Bedrock, 20 images, step 5): the prefix changes only at 21, 26, 31, 36, 41 images, and 16–20 are sent', () => {
    const all = Array.from({ length: 45 }, (_, i) => png(10 + i, 10));
    const build = (n: number): BedrockMessage[] => [
      { role: 'user', content: [{ text: 'watch' }] },
      ...all.slice(0, n).flatMap((bytes, i): BedrockMessage[] => [
        { role: 'assistant', content: [{ toolUse: { toolUseId: `t${i}`, name: 'snap', input: {} } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: `t${i}`, content: [{ text: `shot ${i}` }, { image: { format: 'png', source: { bytes } } }] } }] },
      ]),
    ];
    const sentIn = (messages: readonly BedrockMessage[]) =>
      messages.reduce((n, m) => n + (m.content ?? []).reduce((k, b) => k + (b.toolResult?.content ?? []).filter((c) => c.image).length, 0), 0);
    const turns = growing(all.length, build, (m) => converseLimits(m) as BedrockMessage[], sentIn);
    expect(moves(turns).map((t) => t.images)).toEqual([21, 26, 31, 36, 41]);
    // Each move starts at the oldest image (its placeholder now names a larger count): one cache write per 5 images.
    for (const t of moves(turns)) expect(t.changedAt).toBe(messageOfImage(0));
    for (const t of turns.filter((t) => t.images > 20)) {
      expect(t.sent).toBeGreaterThanOrEqual(16);
      expect(t.sent).toBeLessThanOrEqual(20);
    }
    expect(turns.filter((t) => t.images <= 20).every((t) => t.sent === t.images)).toBe(true);
    expect(turns.slice(20, 26).map((t) => t.sent)).toEqual([16, 17, 18, 19, 20, 16]);
  });

  it('count (Anthropic, 100 images, step 10): the kept count stays within 91–100', () => {
    const all = Array.from({ length: 125 }, (_, i) => pngBase64(10 + i, 10));
    const turns = growing(
      all.length,
      (n) => anthropicShots(all.slice(0, n)),
      (m) => anthropicLimits(m) as NativeMessage[],
      anthropicSent,
    );
    expect(moves(turns).map((t) => t.images)).toEqual([101, 111, 121]);
    const past = turns.filter((t) => t.images > 100).map((t) => t.sent);
    expect(Math.min(...past)).toBe(91);
    expect(Math.max(...past)).toBe(100);
  });

  it('bytes: with images of mixed sizes the cut still moves only when the images needed out cross a step', () => {
    // Raw sizes 600–3,000 bytes (800–4,000 base64), a 40,000-character budget: 10 to 50 fit.
    const all = Array.from({ length: 80 }, (_, i) => ({ data: pngBase64(10 + i, 10, 600 + ((i * 7919) % 2401)) }));
    const run = (limits: ImageLimits) =>
      growing(
        all.length,
        (n) => anthropicShots(all.slice(0, n).map((b) => b.data)),
        (m) => anthropicLimits(m, limits) as NativeMessage[],
        anthropicSent,
      );
    const limits = wide({ maxBytes: 40_000, step: 5 });
    const turns = run(limits);
    const omitted = turns.map((t) => t.images - t.sent);
    expect(Math.max(...omitted)).toBeGreaterThan(20);
    // Every cut is a whole number of steps, never shrinks, sends what fits but at most 4 fewer.
    expect(omitted.every((o) => o % 5 === 0)).toBe(true);
    expect(omitted.every((o, i) => i === 0 || o >= omitted[i - 1])).toBe(true);
    for (const t of turns) {
      const cut = cutImages(limits, all.slice(0, t.images), (b) => b.data);
      expect(cut.omitted).toBe(t.images - t.sent);
      expect(all.slice(cut.omitted, t.images).reduce((n, b) => n + b.data.length, 0)).toBeLessThanOrEqual(40_000);
      expect(t.sent).toBeGreaterThan(cut.fit - 5);
    }
    // The prefix changes exactly when the cut moves; the raw run (step 1) moves at least 3× as often.
    const changed = turns.filter((t, i) => i > 0 && omitted[i] !== omitted[i - 1]).map((t) => t.images);
    expect(moves(turns).map((t) => t.images)).toEqual(changed);
    expect(changed.length).toBeGreaterThan(0);
    expect(moves(run(wide({ maxBytes: 40_000 }))).length).toBeGreaterThanOrEqual(3 * changed.length);
  });

  it('side (Anthropic, > 20 images → ≤ 2000 px): an old 2400 px image moves the cut once, not with each new image', () => {
    const all = Array.from({ length: 40 }, (_, i) => pngBase64(i === 2 ? 2400 : 100 + i, 10));
    const turns = growing(
      all.length,
      (n) => anthropicShots(all.slice(0, n)),
      (m) => anthropicLimits(m) as NativeMessage[],
      anthropicSent,
    );
    expect(moves(turns).map((t) => t.images)).toEqual([21]);
    expect(turns.slice(20).map((t) => t.sent)).toEqual(range(11, 30));
  });

  it('the step keeps at least half of what fits; a newest image too large alone leaves every image out', () => {
    // 4,000-character images, 12,000 allowed: 3 fit. A step of 5 would leave none; 2 of the 4 are sent.
    const all = Array.from({ length: 4 }, (_, i) => ({ data: pngBase64(10 + i, 10, 3000) }));
    expect(cutImages(wide({ maxBytes: 12_000, step: 5 }), all, (b) => b.data)).toMatchObject({ omitted: 2, fit: 3, reason: 'bytes' });
    expect(cutImages(wide({ maxBytes: 3999, step: 5 }), all, (b) => b.data)).toMatchObject({ omitted: 4, fit: 0, reason: 'bytes' });
  });
});
