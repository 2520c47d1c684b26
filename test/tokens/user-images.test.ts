/**
 * A user's images count like a tool result's: in the context estimate (IMAGE_TOKENS each, never
 * their base64), in every wire's request-level cut (a long session of screenshots keeps its
 * newest ones, the oldest become the placeholder), and in the compaction document (named, not
 * sent).
 */
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../src/compaction/document.js';
import { userMessage, type Message } from '../../src/core/message.js';
import { AnthropicEncoder, withinImageLimits as anthropicLimits } from '../../src/providers/anthropic-wire.js';
import { ConverseEncoder, withinImageLimits as converseLimits } from '../../src/providers/bedrock-wire.js';
import { GenkitEncoder, withinImageLimits as geminiLimits } from '../../src/providers/genkit-messages.js';
import { ChatEncoder, withinImageLimits as chatLimits } from '../../src/providers/openai-chat-messages.js';
import { ResponsesEncoder, withinImageLimits as responsesLimits } from '../../src/providers/openai-responses-items.js';
import { IMAGE_LIMITS, type ImageLimits } from '../../src/tokens/image-budget.js';
import { estimateMessage, IMAGE_TOKENS } from '../../src/tokens/token-estimator.js';
import { pngBase64 } from '../kit/png-bytes.js';

const shot = (n: number) => ({ media_type: 'image/png', data: pngBase64(n, n) });
const history = (count: number): Message[] => Array.from({ length: count }, (_, i) => userMessage(`screen ${i}`, [shot(i + 1)]));

describe('user images in the estimate', () => {
  it('each image is IMAGE_TOKENS, whatever its base64 length', () => {
    const plain = estimateMessage(userMessage('what is this'));
    expect(estimateMessage(userMessage('what is this', [shot(4), { media_type: 'image/png', data: pngBase64(4, 4, 200_000) }]))).toBe(plain + 2 * IMAGE_TOKENS);
  });
});

/** JSON with Converse's raw image bytes as the base64 the SDK sends. */
const json = (v: unknown) => JSON.stringify(v, (_k, x) => (x?.type === 'Buffer' && Array.isArray(x.data) ? Buffer.from(x.data).toString('base64') : x));

/** A 3-image count limit, step 1: with 5 user images the 2 oldest are cut. */
const THREE: ImageLimits = { maxImages: 3, maxBytes: 50_000_000, step: 1 };
const PLACEHOLDER = '[image omitted from this request: the API accepts at most 3 images per request; the 2 oldest left out]';

describe('user images in the request-level cut', () => {
  it.each([
    ['anthropic', () => new AnthropicEncoder([]), (v: any) => anthropicLimits(v.messages, THREE)],
    ['bedrock', () => new ConverseEncoder('anthropic.claude-sonnet-4-5'), (v: any) => converseLimits(v.messages, THREE)],
    ['responses', () => new ResponsesEncoder('openai-responses', false), (v: any) => responsesLimits(v.input, THREE)],
    ['chat', () => new ChatEncoder(), (v: any) => chatLimits(v, THREE)],
    ['gemini', () => new GenkitEncoder(), (v: any) => geminiLimits(v, THREE)],
  ] as const)('%s: the newest images are sent, the oldest become the placeholder; the history keeps them', (_name, make, cut) => {
    const encoder = make() as { push(m: Message): void; view(): unknown };
    // Assistant replies between the user turns, so no wire merges them.
    for (const m of history(5)) {
      encoder.push(m);
      encoder.push({ role: 'assistant', content: 'ok' });
    }
    const view = encoder.view();
    const before = json(view);
    const sent = json(cut(view));
    expect(sent.split(PLACEHOLDER).length - 1).toBe(2);
    for (const i of [1, 2]) expect(sent).not.toContain(pngBase64(i, i));
    for (const i of [3, 4, 5]) expect(sent).toContain(pngBase64(i, i));
    expect(json(view)).toBe(before);
  });

  it('the real limits leave a 20-screenshot session whole on Anthropic and cut Bedrock at 20', () => {
    const anthropic = new AnthropicEncoder([]);
    const converse = new ConverseEncoder('anthropic.claude-sonnet-4-5');
    for (const m of history(21)) {
      for (const e of [anthropic, converse]) {
        e.push(m);
        e.push({ role: 'assistant', content: 'ok' });
      }
    }
    expect(JSON.stringify(anthropicLimits(anthropic.view().messages, IMAGE_LIMITS.anthropic))).not.toContain('image omitted');
    expect(JSON.stringify(converseLimits(converse.view().messages, IMAGE_LIMITS.bedrock))).toContain('the 5 oldest left out');
  });
});

describe('user images in the compaction document', () => {
  it('are named by a line, their bytes never in the text', () => {
    const image = shot(8);
    const doc = buildDocument({ messages: [userMessage('look', [image])], instructions: 'Summarise.', budget: 10_000, count: (t) => Math.ceil(t.length / 4) });
    expect(doc.text).toContain('[user]\nlook\n[image: image/png, ');
    expect(doc.text).not.toContain(image.data);
  });
});
