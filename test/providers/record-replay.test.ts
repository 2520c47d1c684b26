/**
 * Record mode: with KEEN_RECORD=DIR every request and the raw response bytes are saved; a fake
 * replays such a recording as a scripted case and the adapter decodes the same reply from it.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemMessage, userMessage } from '../../src/core/message.js';
import type { ModelTurnEvent, ProviderAdapter } from '../../src/core/provider.js';
import { loadRecordings, replayOf, waitForRecordings } from '../fakes/recording.js';
import type { FakeReply } from '../fakes/script.js';
import { tempDir } from '../kit/temp-dir.js';
import { PROVIDER_CASES } from './conformance-cases.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { createGenkitAdapter } from '../../src/providers/genkit.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { turn } from '../kit/events.js';

const REPLY: FakeReply = { steps: [{ thinking: 'Look first.' }, { text: 'Reading.' }, { toolCall: { id: 'call_r', name: 'read_file', args: { path: 'a.txt' } } }] };

async function oneTurn(adapter: ProviderAdapter, prompt = 'Go.'): Promise<ModelTurnEvent[]> {
  const conversation = await adapter.open({ model: 'test-model', messages: [systemMessage('S'), userMessage(prompt)], tools: [], maxOutputTokens: 500 });
  return turn(conversation);
}

describe.each(PROVIDER_CASES)('$name record mode', (pc) => {
  let dir: string;
  let home: string;
  let restore: (() => void) | undefined;

  beforeEach(() => {
    dir = tempDir('keen-record-');
    home = tempDir('keen-home-');
    restore = pc.setup?.();
  });
  afterEach(() => {
    restore?.();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('records request and raw response, and a fake replays the recording into the same reply', async () => {
    const live = await pc.start();
    let recorded: ModelTurnEvent[];
    try {
      live.enqueue(REPLY);
      recorded = await oneTurn(await pc.adapter(live, home, { KEEN_RECORD: dir }));
    } finally {
      await live.close();
    }
    expect(recorded.at(-1)).toMatchObject({ type: 'turn_end', stopReason: 'tool_use' });
    const [recording] = await waitForRecordings(dir, 1);
    expect(recording).toMatchObject({ format: 'keen-recording-1', status: 200 });
    expect(JSON.stringify(recording.request)).toContain('Go.');
    expect(Buffer.from(recording.response_base64, 'base64').length).toBeGreaterThan(100);
    // No header was recorded: credentials never reach a recording.
    expect(JSON.stringify(recording)).not.toMatch(/authorization|x-api-key|Bearer/i);

    const replay = await pc.start();
    try {
      replay.enqueue(replayOf(recording));
      const replayed = await oneTurn(await pc.adapter(replay, home));
      expect(replayed.at(-1)).toEqual(recorded.at(-1));
      expect(replay.requests[0].body).toEqual(recording.request);
    } finally {
      await replay.close();
    }
    expect(loadRecordings(dir)).toHaveLength(1);
  });

  it('a credential in the conversation goes to the model but not into the recording', async () => {
    const key = 'sk-ant-api03-RecordedKeyMustNotStay0123456789';
    // No known format: redacted because the environment names it a credential, as transcripts do.
    const token = 'dt-live-0123456789abcdefXYZ';
    const live = await pc.start();
    try {
      live.enqueue({ steps: [{ text: 'Noted.' }] });
      await oneTurn(await pc.adapter(live, home, { KEEN_RECORD: dir, DEPLOY_TOKEN: token }), `Deploy with ${key} and ${token} please.`);
      expect(JSON.stringify(live.requests[0].body)).toContain(key);
      expect(JSON.stringify(live.requests[0].body)).toContain(token);
    } finally {
      await live.close();
    }
    const [recording] = await waitForRecordings(dir, 1);
    const saved = fs.readFileSync(`${dir}/${fs.readdirSync(dir)[0]}`, 'utf8');
    expect(saved).not.toContain(key);
    expect(saved).not.toContain(token);
    expect(JSON.stringify(recording.request)).toContain('Deploy with [REDACTED] and [REDACTED] please.');
  });
});

describe("record mode and the adapter's own key", () => {
  it('a key read from any variable (config apiKeyEnv) is redacted from the recording as from a transcript', async () => {
    const dir = tempDir('keen-record-key-');
    const home = tempDir('keen-home-');
    const fake = await startAnthropicFake();
    try {
      const key = 'custom-gateway-key-0123456789';
      fake.enqueue({ steps: [{ text: 'Noted.' }] });
      const adapter = await createAnthropicAdapter({ maxRetries: 0, home, env: { KEEN_RECORD: dir }, model: 'test-model', apiKey: key, baseURL: fake.url });
      await oneTurn(adapter, `my key is ${key}`);
      expect(JSON.stringify(fake.requests[0].body)).toContain(key);
      await waitForRecordings(dir, 1);
      const saved = fs.readFileSync(`${dir}/${fs.readdirSync(dir)[0]}`, 'utf8');
      expect(saved).not.toContain(key);
      expect(saved).toContain('my key is [REDACTED]');
    } finally {
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("Genkit's requests, the only ones routed on the global fetch", () => {
  it('record mode records the Gemini endpoint and nothing else that calls the global fetch', async () => {
    const dir = tempDir('keen-record-genkit-');
    const home = tempDir('keen-home-');
    const gemini = await startGeminiFake();
    const other = await startAnthropicFake();
    try {
      gemini.enqueue({ steps: [{ text: 'Recorded.' }] });
      const adapter = await createGenkitAdapter({ maxRetries: 0, home, env: { KEEN_RECORD: dir }, model: 'gemini-2.5-flash', apiKey: 'gemini-test-key', baseURL: gemini.url });
      await oneTurn(adapter, 'hi');
      await waitForRecordings(dir, 1);
      other.enqueue({ steps: [{ text: 'not recorded' }] });
      const res = await fetch(`${other.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.text();
      expect(other.requests).toHaveLength(1);
      expect(loadRecordings(dir).map((r) => r.provider)).toEqual(['genkit']);
    } finally {
      await gemini.close();
      await other.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
