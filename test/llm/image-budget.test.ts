/**
 * The request-level image budget, pure: the newest images that fit the count, the byte total and
 * the many-images side rule stay; the older ones are named by one placeholder line; the same
 * images always give the same cut; nothing given is changed. Images are real PNGs (png-bytes.ts).
 */
import { imageSize } from 'image-size';
import { describe, expect, it } from 'vitest';
import { cutImages, IMAGE_LIMITS, planImageCut, type BudgetImage, type ImageLimits } from '../../src/llm/core/image-budget.js';
import { withinImageLimits as anthropicLimits, type NativeMessage } from '../../src/llm/providers/anthropic-wire.js';
import { withinImageLimits as converseLimits } from '../../src/llm/providers/bedrock-wire.js';
import { withinImageLimits as responsesLimits } from '../../src/llm/providers/openai-responses-items.js';
import { png, pngBase64 } from './png-bytes.js';

/** An image block as the wires hold one: base64 text. */
interface Block {
  data: string;
}

const blocks = (sides: number[]): Block[] => sides.map((w) => ({ data: pngBase64(w, 10) }));
const widthOf = (b: Block) => imageSize(Buffer.from(b.data, 'base64')).width;
const keptWidths = (all: Block[], omitted: number) => all.slice(omitted).map(widthOf);
const wide = (limits: Partial<ImageLimits>): ImageLimits => ({ maxImages: 1000, maxBytes: 1e9, ...limits });

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
      reason: 'count',
      placeholder: '[image omitted from this request: the API accepts at most 3 images per request; 5 in this conversation, the 2 oldest left out]',
    });
    expect(keptWidths(all, cut.omitted)).toEqual([103, 104, 105]);
  });

  it('one over: "the oldest"; within the limits nothing is left out', () => {
    const all = blocks([1, 2, 3, 4]);
    expect(cutImages(wide({ maxImages: 3 }), all, (b) => b.data).placeholder).toBe(
      '[image omitted from this request: the API accepts at most 3 images per request; 4 in this conversation, the oldest left out]',
    );
    expect(cutImages(wide({ maxImages: 4 }), all, (b) => b.data)).toEqual({ total: 4, omitted: 0 });
    expect(cutImages(IMAGE_LIMITS.bedrock, [], (b: Block) => b.data)).toEqual({ total: 0, omitted: 0 });
  });

  it('the byte limit counts the base64 as sent and stops at the first image that does not fit', () => {
    // 3,000-byte PNGs are 4,000 base64 characters; 10,000 takes two.
    const all = [600, 3000, 3000, 3000].map((size, i) => ({ data: pngBase64(100 + i, 10, size) }));
    expect(all.map((b) => b.data.length)).toEqual([800, 4000, 4000, 4000]);
    const cut = cutImages(wide({ maxBytes: 10_000 }), all, (b) => b.data);
    // The small oldest image would still fit, but the newest run ends at the first that does not: never a hole.
    expect(cut).toMatchObject({ total: 4, omitted: 2, reason: 'bytes' });
    expect(cut.placeholder).toBe('[image omitted from this request: the images of one request may take at most 10 KB; 4 in this conversation, the 2 oldest left out]');
    expect(keptWidths(all, 2)).toEqual([102, 103]);
    // Raw bytes (Bedrock) count as the base64 the SDK sends.
    const raw = all.map((b) => Buffer.from(b.data, 'base64'));
    expect(cutImages(wide({ maxBytes: 8000 }), raw, (b) => b)).toMatchObject({ omitted: 2, reason: 'bytes' });
    expect(cutImages(wide({ maxBytes: 7999 }), raw, (b) => b)).toMatchObject({ omitted: 3, reason: 'bytes' });
  });

  it('the byte limit is named in MB', () => {
    const cut = planImageCut(IMAGE_LIMITS.bedrock, [
      { size: 9_000_000, side: () => 10 },
      { size: 9_000_000, side: () => 10 },
    ]);
    expect(cut.placeholder).toBe('[image omitted from this request: the images of one request may take at most 15 MB; 2 in this conversation, the oldest left out]');
  });

  it('more than 20 images: each kept one must be at most 2000 px a side, so the run ends at the first larger one', () => {
    // 24 images, the third oldest 2400 px wide: the newest 21 fit, the 22nd newest does not.
    const sides = Array.from({ length: 24 }, (_, i) => (i === 2 ? 2400 : 200 + i));
    const all = sides.map((w) => ({ data: pngBase64(w, 30) }));
    const cut = cutImages(IMAGE_LIMITS.anthropic, all, (b) => b.data);
    expect(cut).toEqual({
      total: 24,
      omitted: 3,
      reason: 'side',
      placeholder: '[image omitted from this request: with more than 20 images in a request the API takes none over 2000×2000 px; 24 in this conversation, the 3 oldest left out]',
    });
    expect(keptWidths(all, 3)).toEqual(sides.slice(3));
  });

  it('a large newest image keeps the request at 20 images; 20 or fewer large ones all go', () => {
    const sides = Array.from({ length: 22 }, (_, i) => (i === 21 ? 3000 : 300));
    const all = sides.map((w) => ({ data: pngBase64(w, 30) }));
    expect(cutImages(IMAGE_LIMITS.anthropic, all, (b) => b.data)).toMatchObject({ omitted: 2, reason: 'side' });
    expect(cutImages(IMAGE_LIMITS.anthropic, all.slice(2), (b) => b.data)).toEqual({ total: 20, omitted: 0 });
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
    ).toEqual({ total: 20, omitted: 0 });
    expect(reads).toBe(0);
    expect(
      planImageCut(
        IMAGE_LIMITS.bedrock,
        Array.from({ length: 20 }, () => image(undefined)),
      ).omitted,
    ).toBe(0);
    expect(reads).toBe(0);
    const unreadable = [image(undefined), ...Array.from({ length: 21 }, () => image(100))];
    expect(planImageCut(IMAGE_LIMITS.anthropic, unreadable)).toMatchObject({ omitted: 1, reason: 'side' });
    // The 21 newest read once each when the run passed 20, then the oldest: 22 reads, not 21².
    expect(reads).toBe(22);
    const notAnImage = [{ data: Buffer.from('no pixels here').toString('base64') }, ...blocks(Array.from({ length: 21 }, () => 50))];
    expect(cutImages(IMAGE_LIMITS.anthropic, notAnImage, (b) => b.data)).toMatchObject({ omitted: 1, reason: 'side' });
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
    const placeholder = '[image omitted from this request: the API accepts at most 2 images per request; 4 in this conversation, the 2 oldest left out]';
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
    expect(out[0].content?.[0].toolResult?.content).toEqual([{ text: 'shot 0' }, { text: expect.stringContaining('3 in this conversation, the 2 oldest left out]') }]);
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
    expect((out[0] as any).output[1]).toEqual({ type: 'input_text', text: expect.stringContaining('3 in this conversation, the oldest left out]') });
    expect(out[1]).toBe(input[1]);
    expect(responsesLimits(input)).toBe(input);
  });
});
