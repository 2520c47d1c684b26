/**
 * Thinking that keeps the prompt cache (issue 29): the loop over the real Anthropic adapter and the
 * loopback fake, a 16k thinking budget under a 32k output limit in a small window. Anthropic drops
 * cached messages when the thinking parameters change, so every request of the session — the
 * nested summary request included — must carry the same ones, and the fake refuses what the
 * service refuses (budget_tokens below 1,024 or not below max_tokens, an unsigned thinking block).
 * OpenAI Responses likewise: one `reasoning.effort` for the parent requests and the summary's fork.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemMessage, userMessage } from '../../src/core/message.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import type { RecordedRequest } from '../fakes/script.js';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { COMPACTION_MARKER, makeClient, request } from '../loop/loop-harness.js';
import { collect, textOf } from '../kit/events.js';
import { PROVIDER_CASES } from '../providers/conformance-cases.js';
import { useProviderRig } from '../providers/provider-rig.js';
import { bigText, useLongSession } from './long-session.js';

const SUMMARY = '## Goal\nRead the files.\n## Accomplished\nSome files read.';
const WINDOW = 40_000;
const BUDGET = 16_000;

const session = useLongSession(30, 'f');

describe('a thinking budget over a long session', () => {
  it('every request, the summary request included, sends the configured budget with max_tokens above it', async () => {
    let turns = 0;
    session.fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ thinking: 'What matters so far.' }, { text: SUMMARY }] };
      turns++;
      if (turns > 24) return { steps: [{ thinking: 'All read.' }, { text: 'All files read.' }] };
      return {
        steps: [{ thinking: `Next is file ${turns}.` }, { text: `Reading ${turns}.` }, { toolCall: { id: `c${turns}`, name: 'read_file', args: { path: `f-${turns}.txt` } } }],
      };
    });
    const adapter = await session.adapter('claude-sonnet-4-5');
    const client = makeClient(adapter, { window: WINDOW, cwd: session.cwd });
    const start = {
      ...request([systemMessage('You are a test agent.'), userMessage('Read all the files.')], 'claude-sonnet-4-5'),
      maxOutputTokens: 32_000,
      thinkingBudget: BUDGET,
    };
    const events = await collect(client.streamChat(start, createDefaultRegistry()));

    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(textOf(events)).toContain('All files read.');
    const summaries = session.fake.requests.filter(isCompactionRequest);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    // The nested request is the fork (the parent's system and tools): the cache-parity route.
    for (const s of summaries) {
      expect(s.body.system[0].text).toBe('You are a test agent.');
      expect(s.body.tools.length).toBeGreaterThan(0);
    }
    for (const r of session.fake.requests) {
      expect(r.body.thinking).toEqual({ type: 'enabled', budget_tokens: BUDGET });
      expect(r.body.max_tokens).toBeGreaterThan(BUDGET);
    }
  });

  it('a budget the output limit cannot hold is left out of every request, not shrunk', async () => {
    session.fake.setResponder(() => ({ steps: [{ text: 'Hello.' }] }));
    const adapter = await session.adapter('claude-sonnet-4-5');
    const client = makeClient(adapter, { window: WINDOW, cwd: session.cwd });
    const start = { ...request([userMessage('Hi.')], 'claude-sonnet-4-5'), maxOutputTokens: 8_000, thinkingBudget: BUDGET };
    const events = await collect(client.streamChat(start, createDefaultRegistry()));
    expect(textOf(events)).toBe('Hello.');
    expect(session.fake.requests[0].body.thinking).toBeUndefined();
    expect(session.fake.requests[0].body.max_tokens).toBe(8_000);
  });
});

describe('OpenAI Responses: reasoning effort over a long session', () => {
  const pc = PROVIDER_CASES.find((c) => c.name === 'openai-responses')!;
  const rig = useProviderRig(pc, (cwd) => {
    for (let i = 1; i <= 30; i++) fs.writeFileSync(path.join(cwd, `r-${i}.txt`), bigText(i));
  });
  const isSummary = (req: RecordedRequest) => JSON.stringify(req.body.input).includes(COMPACTION_MARKER);

  it('the automatic summary request (the fork) sends the same reasoning effort as every parent request', async () => {
    let turns = 0;
    rig.fake.setResponder((req) => {
      if (isSummary(req)) return { steps: [{ thinking: 'What matters so far.' }, { text: SUMMARY }] };
      turns++;
      if (turns > 24) return { steps: [{ thinking: 'All read.' }, { text: 'All files read.' }] };
      return {
        steps: [{ thinking: `Next is file ${turns}.` }, { text: `Reading ${turns}.` }, { toolCall: { id: `c${turns}`, name: 'read_file', args: { path: `r-${turns}.txt` } } }],
      };
    });
    const client = makeClient(await pc.adapter(rig.fake, rig.home), { window: WINDOW, cwd: rig.cwd });
    const start = { ...request([systemMessage('You are a test agent.'), userMessage('Read all the files.')], 'gpt-test'), maxOutputTokens: 32_000, thinkingBudget: BUDGET };
    const events = await collect(client.streamChat(start, createDefaultRegistry()));

    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(textOf(events)).toContain('All files read.');
    const summaries = rig.fake.requests.filter(isSummary);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const parents = rig.fake.requests.filter((r) => !isSummary(r));
    expect(parents.length).toBeGreaterThan(summaries.length);
    // The summary is the fork (the parent's instructions and tools), so it can read the parent's cache.
    for (const s of summaries) {
      expect(s.body.instructions).toBe('You are a test agent.');
      expect(JSON.stringify(s.body.tools)).toBe(JSON.stringify(parents[0].body.tools));
    }
    for (const r of rig.fake.requests) expect(r.body.reasoning).toEqual({ effort: 'medium', summary: 'auto' });
  });
});
