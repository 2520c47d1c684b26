/**
 * Spawned `keen run` / `keen compact` on every provider: the nested request refused for length
 * falls back to the budgeted document, then a manual compaction merges into one level-2 summary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARISER_SYSTEM_PROMPT } from '../../src/compaction/prompts.js';
import type { RecordedRequest } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { COMPACTION_MARKER } from '../loop/loop-harness.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace, tempDir } from '../kit/temp-dir.js';
import { PROVIDER_CASES, type ProviderCase } from './provider-cases.js';

const log = (n: number) => Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');
const isCompaction = (req: RecordedRequest) => JSON.stringify(req.body).includes(COMPACTION_MARKER);
const isDocument = (req: RecordedRequest) => JSON.stringify(req.body).includes(SUMMARISER_SYSTEM_PROMPT.slice(0, 40));
const TOO_LONG = { error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } };

async function withProvider(pc: ProviderCase, body: (fake: ScriptedServer, keen: (args: string[]) => ReturnType<typeof runKeen>, ws: Workspace) => Promise<void>): Promise<void> {
  assertBuilt();
  const fake = await pc.start();
  const tmp = tempDir('keen-e2e-prov-');
  try {
    const { entry, env } = await pc.setup(fake, tmp);
    const config = { models: { tiny: { provider: pc.provider, contextWindow: 13_000, maxOutputTokens: 1000, ...entry } }, model: 'tiny', compaction: { keepRecentTokens: 0 } };
    const files: Record<string, string> = {};
    for (let i = 1; i <= 4; i++) files[`log-${i}.txt`] = log(i);
    const ws = tempWorkspace(files);
    // The user's own config: a project's config may not set base URLs (workspace trust).
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));
    await body(fake, (args) => runKeen(args, { cwd: ws.cwd, home: ws.home, env, timeoutMs: 60_000 }), ws);
  } finally {
    await fake.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The agent reads log-1 … log-4, then answers; summary requests go to `summary`. */
function reader(fake: ScriptedServer, summary: (req: RecordedRequest, k: number) => any): void {
  let turns = 0;
  let k = 0;
  fake.setResponder((req) => {
    if (isCompaction(req)) return summary(req, ++k);
    turns++;
    if (turns > 4) return { steps: [{ text: 'Finished.' }] };
    return { steps: [{ text: `Reading ${turns}. ` }, { toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
  });
}

describe.each(PROVIDER_CASES)('$provider: spawned keen', (pc) => {
  it(
    'a refused nested request falls back to the document; keen compact then merges into one level-2 summary',
    () =>
      withProvider(pc, async (fake, keen, ws) => {
        reader(fake, (req, k) => {
          if (k === 1) return TOO_LONG;
          const previous = JSON.stringify(req.body).includes('FACT-ONE') ? 'FACT-ONE\n' : '';
          return { steps: [{ text: `## Discoveries\n${previous}${k === 2 ? 'FACT-ONE' : 'FACT-TWO'}` }] };
        });
        const run = await keen(['run', '--format', 'json', 'Read every log.']);
        const out = JSON.parse(run.stdout);
        expect(out.compactions).toBe(1);
        const sent = fake.requests.filter(isCompaction);
        expect(sent).toHaveLength(2);
        expect(isDocument(sent[0])).toBe(false);
        expect(isDocument(sent[1])).toBe(true);
        // The nested request's cache breakpoint sits before the compaction instruction (written
        // once and never read, it stays out of the cached prefix).
        const fork = JSON.stringify(sent[0].body.messages ?? sent[0].body.input ?? sent[0].body.contents);
        const instruction = fork.lastIndexOf(COMPACTION_MARKER);
        expect(fork.slice(instruction)).not.toMatch(/cache_control|cachePoint/);
        if (pc.provider === 'anthropic' || pc.provider === 'bedrock') expect(fork.slice(0, instruction)).toMatch(/cache_control|cachePoint/);

        const c = await keen(['compact', '--session', out.session_id]);
        expect(c.code).toBe(0);
        const manual = fake.requests.filter(isCompaction).at(-1)!;
        expect(JSON.stringify(manual.body)).toContain('MERGE');
        const transcript = fs.readdirSync(`${ws.home}/sessions`, { recursive: true, withFileTypes: true }).find((d) => d.name === 'transcript_events.jsonl')!;
        const records = fs
          .readFileSync(path.join(transcript.parentPath, transcript.name), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const applied = records.filter((r) => r.kind === 'compaction_applied');
        expect(applied.map((r) => [r.mode, r.messages[0].summary_level])).toEqual([
          ['auto', 1],
          ['manual', 2],
        ]);
        expect(applied[1].messages[0].content).toMatch(/FACT-ONE[\s\S]*FACT-TWO/);
      }),
    90_000,
  );

  it(
    'a stream cut mid-summary is retried once and the summary applies',
    () =>
      withProvider(pc, async (fake, keen) => {
        reader(fake, (_req, k) => (k === 1 ? { steps: [{ text: '## Goal\nhalf a summ' }, { cut: true }] } : { steps: [{ text: '## Goal\nRead the logs.' }] }));
        const out = JSON.parse((await keen(['run', '--format', 'json', 'Read every log.'])).stdout);
        expect(out.compactions).toBe(1);
        expect(out.result).toContain('Finished.');
        expect(fake.requests.filter(isCompaction)).toHaveLength(2);
      }),
    90_000,
  );
});
