/**
 * The request-level image limits through the official SDKs against the loopback fakes, which
 * refuse what the services refuse (test/fakes/image-checks.ts: Bedrock more than 20 images,
 * Anthropic more than 20 with one over 2000 px, Responses more than 500). A session that
 * accumulates more images than a request may carry keeps working: the request sends the newest
 * images (the cut moves in the API's steps) and a placeholder for each older one, while the
 * session's history and its transcript keep every image; the next request and a resumed one send
 * the same cut, and a new image past the limit leaves the old part of the request — the prefix
 * the prompt cache holds — as it was, until the cut reaches its next step.
 */
import { imageSize } from 'image-size';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AppState } from '../../src/agent/app-state.js';
import { SessionController, type TranscriptSink } from '../../src/agent/session-controller.js';
import type { StreamEvent } from '../../src/core/events.js';
import type { Message } from '../../src/core/message.js';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { SessionStore } from '../../src/transcript/store.js';
import { createToolRegistry, defineTool } from '../../src/tools/registry.js';
import { makeClient } from '../loop/loop-harness.js';
import { collect } from '../kit/events.js';
import { pngBase64 } from '../kit/png-bytes.js';
import { PROVIDER_CASES, stripCacheMarkers } from './conformance-cases.js';
import { useProviderRig } from './provider-rig.js';

/** Returns one real PNG per requested width (30 px high), named in its text as the real tools do. */
const snapshot = defineTool({
  name: 'snapshot',
  description: 'Returns pictures of the screen.',
  schema: z.object({ widths: z.array(z.number()) }),
  mutating: false,
  run: async ({ widths }) => {
    const images = widths.map((w) => ({ mimeType: 'image/png', data: pngBase64(w, 30) }));
    return { content: `Captured ${widths.length}.\n${images.map((i) => `[image: image/png, ${Buffer.from(i.data, 'base64').length} B]`).join('\n')}`, images };
  },
});

const OMITTED = '[image omitted from this request:';

/** Every image a request body carries, as its width, in request order, whatever the wire's shape. */
function widthsOnWire(body: unknown): number[] {
  const out: number[] = [];
  const visit = (v: any): void => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(visit);
    const data: unknown =
      v.type === 'image'
        ? v.source?.data
        : v.type === 'input_image'
          ? String(v.image_url).split(',')[1]
          : v.image && typeof v.image.source?.bytes === 'string'
            ? v.image.source.bytes
            : undefined;
    if (typeof data === 'string') out.push(imageSize(Buffer.from(data, 'base64')).width);
    else Object.values(v).forEach(visit);
  };
  visit(body);
  return out;
}

/** The placeholder lines a request body carries. */
function placeholdersOnWire(body: unknown): string[] {
  return (JSON.stringify(body).match(/\[image omitted from this request:[^\]]*\]/g) ?? []).map((s) => s);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface LimitCase {
  name: string;
  /** The widths of each tool call's images, in call order. */
  calls: number[][];
  /** The widths the last request must carry, and the placeholder it names the others with. */
  kept: number[];
  placeholder: string;
  /** One more call within the step (the cut stays), then one that takes the cut to its next step. */
  next: number[];
  crossing: number[];
  /** How many images are left out after `crossing`. */
  crossedOmitted: number;
  /** The model's context window (the estimate prices each image at IMAGE_TOKENS). */
  window?: number;
}

const CASES: LimitCase[] = [
  {
    name: 'bedrock',
    calls: [range(101, 112), range(113, 123)],
    // 23 images need 3 out; the step of 5 leaves out 5 until 25, then 10.
    kept: range(106, 123),
    placeholder: `${OMITTED} the API accepts at most 20 images per request; the 5 oldest left out (the cut moves in steps of 5)]`,
    next: [124],
    crossing: [125, 126],
    crossedOmitted: 10,
  },
  {
    // The third oldest is 2400 px wide: with more than 20 images none may be over 2000 px.
    name: 'anthropic',
    calls: [[101, 102, 2400, ...range(104, 112)], range(113, 124)],
    // 3 must go; the step of 10 leaves out 10. A new 2400 px image among the newest 20 then caps
    // the request at 20 images: 31 images need 11 out, so 20 go.
    kept: range(111, 124),
    placeholder: `${OMITTED} with more than 20 images in a request the API takes none over 2000×2000 px; the 10 oldest left out (the cut moves in steps of 10)]`,
    next: [125],
    crossing: [2400, ...range(127, 131)],
    crossedOmitted: 20,
  },
  {
    name: 'openai-responses',
    calls: [range(1, 250), range(251, 501)],
    kept: range(51, 501),
    placeholder: `${OMITTED} the API accepts at most 500 images per request; the 50 oldest left out (the cut moves in steps of 50)]`,
    next: [502],
    crossing: range(503, 551),
    crossedOmitted: 100,
    // 501 × 1,600 estimated tokens would start a compaction in a 200k window.
    window: 1_000_000,
  },
];

const imagesIn = (history: readonly Message[]) => history.flatMap((m) => (m.role === 'tool' ? (m.images ?? []) : []));

describe.each(CASES)('$name: a request carries the newest images that fit', (lc) => {
  const pc = PROVIDER_CASES.find((c) => c.name === lc.name)!;
  const rig = useProviderRig(pc);
  const all = lc.calls.flat();

  const appState = async (history: Message[] = []) =>
    new AppState({
      client: makeClient(await pc.adapter(rig.fake, rig.home), { cwd: rig.cwd, window: lc.window }),
      registry: createToolRegistry([snapshot]),
      model: 'm',
      maxOutputTokens: 1000,
      sessionId: 's',
      buildSystemPrompt: () => 'You look at screens.',
      history,
    });

  it('older images become placeholders on the wire only; the history and transcript keep all; next and resumed requests send the same', async () => {
    const store = await SessionStore.create(rig.home, { cwd: rig.cwd, provider: pc.name, model: 'm', keenVersion: 'test', env: {} });
    const state = await appState();
    const live = new SessionController(state, store);
    rig.fake.enqueue(...lc.calls.map((widths) => ({ steps: [{ toolCall: { name: 'snapshot', args: { widths } } }] })), { steps: [{ text: 'Seen them.' }] });
    const events = await collect(live.chat('Watch the screen.') as AsyncIterable<StreamEvent>);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(rig.fake.requests).toHaveLength(lc.calls.length + 1);

    // Before the limit: every image is sent.
    expect(widthsOnWire(rig.fake.requests[1].body)).toEqual(lc.calls[0]);
    expect(placeholdersOnWire(rig.fake.requests[1].body)).toEqual([]);
    // Past it: the newest, left out in steps, and one placeholder per image left out.
    const last = rig.fake.requests.at(-1)!.body;
    expect(widthsOnWire(last)).toEqual(lc.kept);
    expect(placeholdersOnWire(last)).toEqual(Array(all.length - lc.kept.length).fill(lc.placeholder));

    // The session keeps every image, in memory and in the transcript.
    expect(imagesIn(state.messages)).toHaveLength(all.length);
    const { records } = await loadTranscript(store.path);
    const history = buildConversation(records);
    expect(imagesIn(history).map((i) => imageSize(Buffer.from(i.data, 'base64')).width)).toEqual(all);

    // The next request sends the same cut: the previous request is its prefix.
    rig.fake.enqueue({ steps: [{ text: 'Still here.' }] });
    await collect(live.chat('Next.') as AsyncIterable<StreamEvent>);
    const next = rig.fake.requests.at(-1)!.body;
    const before = stripCacheMarkers(pc.parts(last)).messages;
    expect(stripCacheMarkers(pc.parts(next)).messages.slice(0, before.length)).toEqual(before);
    await store.close();

    // A resumed session sends what the live one sent.
    const sink: TranscriptSink = { append: async () => undefined, appendBatch: async () => undefined, redactText: (t: string) => t };
    const resumed = new SessionController(await appState(history), sink);
    rig.fake.enqueue({ steps: [{ text: 'Resumed.' }] });
    const again = await collect(resumed.chat('Next.') as AsyncIterable<StreamEvent>);
    expect(again.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(stripCacheMarkers(rig.fake.requests.at(-1)!.body)).toEqual(stripCacheMarkers(next));
  });

  it('a new image past the limit keeps the old part of the request (the cached prefix) as it was, until the cut crosses a step', async () => {
    const state = await appState();
    const sink: TranscriptSink = { append: async () => undefined, appendBatch: async () => undefined, redactText: (t: string) => t };
    const calls = [...lc.calls, lc.next, lc.crossing];
    rig.fake.enqueue(...calls.map((widths) => ({ steps: [{ toolCall: { name: 'snapshot', args: { widths } } }] })), { steps: [{ text: 'Seen them.' }] });
    const events = await collect(new SessionController(state, sink).chat('Watch the screen.') as AsyncIterable<StreamEvent>);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const messagesOf = (n: number) => stripCacheMarkers(pc.parts(rig.fake.requests[n].body)).messages as unknown[];
    const past = lc.calls.length;
    const [before, after, crossed] = [past, past + 1, past + 2].map(messagesOf);

    // Within the step: the request before is the start of the one after, images and placeholders alike.
    expect(after.slice(0, before.length)).toEqual(before);
    expect(placeholdersOnWire(after)).toEqual(placeholdersOnWire(before));
    expect(widthsOnWire(after)).toEqual([...lc.kept, ...lc.next]);

    // Crossing the step: the request changes from the first placeholder on (it names the new count), once.
    const all = calls.flat();
    expect(widthsOnWire(crossed)).toEqual(all.slice(lc.crossedOmitted));
    expect(placeholdersOnWire(crossed)).toHaveLength(lc.crossedOmitted);
    const firstPlaceholder = crossed.findIndex((m) => placeholdersOnWire(m).length > 0);
    const firstChange = after.findIndex((m, i) => JSON.stringify(m) !== JSON.stringify(crossed[i]));
    expect(firstPlaceholder).toBeGreaterThanOrEqual(0);
    expect(firstChange).toBe(firstPlaceholder);
  });
});
