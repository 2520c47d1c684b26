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
import type { RecordedRequest } from '../fakes/script.js';
import { makeClient } from '../loop/loop-harness.js';
import { collect } from '../kit/events.js';
import { PROVIDER_CASES, stripCacheMarkers } from './conformance-cases.js';
import { useProviderRig } from './provider-rig.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PLACEHOLDER = '[image: image/png, 69 B]';

const snapshot = defineTool({
  name: 'snapshot',
  description: 'Returns a picture of the screen.',
  schema: z.object({}),
  mutating: false,
  run: async () => ({ content: `Screen captured.\n${PLACEHOLDER}`, images: [{ mimeType: 'image/png', data: PNG }] }),
});

/** Where the image must show up in the request after the tool ran (undefined: placeholder only). */
const IMAGE_ON_WIRE: Record<string, ((body: any) => unknown) | undefined> = {
  anthropic: (b) => b.messages[2].content[0].content,
  bedrock: (b) => b.messages[2].content[0].toolResult.content,
  'openai-responses': (b) => b.input.find((i: any) => i.type === 'function_call_output').output,
  codex: (b) => b.input.find((i: any) => i.type === 'function_call_output').output,
  openai: undefined,
  genkit: undefined,
};

const EXPECTED: Record<string, unknown> = {
  anthropic: [
    { type: 'text', text: `Screen captured.\n${PLACEHOLDER}` },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
  ],
  bedrock: [{ text: `Screen captured.\n${PLACEHOLDER}` }, { image: { format: 'png', source: { bytes: PNG } } }],
  'openai-responses': [
    { type: 'input_text', text: `Screen captured.\n${PLACEHOLDER}` },
    { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
  ],
};
EXPECTED.codex = EXPECTED['openai-responses'];

describe.each(PROVIDER_CASES)('$name: images in tool results', (pc) => {
  const rig = useProviderRig(pc);

  const appState = async (history: Message[] = []) =>
    new AppState({
      client: makeClient(await pc.adapter(rig.fake, rig.home), { cwd: rig.cwd }),
      registry: createToolRegistry([snapshot]),
      model: 'm',
      maxOutputTokens: 1000,
      sessionId: 's',
      buildSystemPrompt: () => 'You look at screens.',
      history,
    });

  it('the image reaches the wire where the API takes it, else the placeholder; next request = live request', async () => {
    const store = await SessionStore.create(rig.home, { cwd: rig.cwd, provider: pc.name, model: 'm', keenVersion: 'test', env: {} });
    const live = new SessionController(await appState(), store);
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'snapshot', args: {} } }] }, { steps: [{ text: 'A white dot.' }] });
    const first = await collect(live.chat('What is on screen?') as AsyncIterable<StreamEvent>);
    expect(first.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(rig.fake.requests).toHaveLength(2);
    const withResult: RecordedRequest = rig.fake.requests[1];
    const wire = JSON.stringify(withResult.body);
    expect(wire).toContain(PLACEHOLDER);
    const pick = IMAGE_ON_WIRE[pc.name];
    if (pick) expect(pick(withResult.body)).toEqual(EXPECTED[pc.name]);
    else expect(wire).not.toContain(PNG);

    // The transcript keeps the image, so a resumed session sends what the live one does.
    const { records } = await loadTranscript(store.path);
    const history = buildConversation(records);
    expect(history.find((m) => m.role === 'tool')).toMatchObject({ images: [{ media_type: 'image/png', data: PNG }] });

    rig.fake.enqueue({ steps: [{ text: 'Same process.' }] });
    await collect(live.chat('Next.') as AsyncIterable<StreamEvent>);
    const sameReq = rig.fake.requests.at(-1)!;
    await store.close();
    const sink: TranscriptSink = { append: async () => undefined, appendBatch: async () => undefined, redactText: (t: string) => t };
    const resumed = new SessionController(await appState(history), sink);
    rig.fake.enqueue({ steps: [{ text: 'Resumed.' }] });
    const again = await collect(resumed.chat('Next.') as AsyncIterable<StreamEvent>);
    expect(again.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const resumedReq = rig.fake.requests.at(-1)!;

    const liveParts = stripCacheMarkers(pc.parts(withResult.body));
    const nextParts = stripCacheMarkers(pc.parts(sameReq.body));
    expect(nextParts.messages.slice(0, liveParts.messages.length)).toEqual(liveParts.messages);
    expect(stripCacheMarkers(resumedReq.body)).toEqual(stripCacheMarkers(sameReq.body));
  });
});
