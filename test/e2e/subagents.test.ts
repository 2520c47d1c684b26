/**
 * The task tool end to end: a child agent loop through the shared loop, against the loopback
 * Anthropic fake; and the context that survives an automatic compaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/script.js';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { filesUnder, toolResults, useCliRig, userTexts } from './cli-fixtures.js';
import { systemText, toolNames } from './context-fixtures.js';

const { rig, workspace } = useCliRig();
const isChild = (req: RecordedRequest, marker: string) => systemText(req).startsWith(marker);

const SCOUT = '---\nname: scout\ndescription: Finds where things are defined\ntools: [read_file, grep]\n---\nYou are SCOUT, a read-only explorer.\n';

describe('keen run: the task tool', () => {
  it('runs a child with the agent body as its system prompt and only its tools; the parent gets its answer; transcript and usage are kept', async () => {
    const ws = workspace({ '.keen/agents/scout.md': SCOUT, 'src/a.ts': 'export const NEEDLE = 1;\n' });
    const from = rig.fake.requests.length;
    let parentTurns = 0;
    rig.fake.setResponder((req) => {
      if (isChild(req, 'You are SCOUT')) {
        const done = toolResults(req).length > 0;
        return done
          ? { steps: [{ text: 'NEEDLE is defined in src/a.ts line 1.' }], usage: { input: 70, output: 9 } }
          : { steps: [{ toolCall: { id: 'c1', name: 'read_file', args: { path: 'src/a.ts' } } }], usage: { input: 50, output: 5 } };
      }
      parentTurns++;
      if (parentTurns === 1)
        return { steps: [{ toolCall: { id: 'task-1', name: 'task', args: { agent: 'scout', prompt: 'Where is NEEDLE defined?' } } }], usage: { input: 100, output: 10 } };
      return { steps: [{ text: 'Found it.' }], usage: { input: 120, output: 4 } };
    });
    try {
      const r = await rig.keen(ws, ['run', '--format', 'json', 'find NEEDLE']);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.result).toBe('Found it.');
      const sent = rig.since(from);
      const children = sent.filter((q) => isChild(q, 'You are SCOUT'));
      expect(children).toHaveLength(2);
      expect(toolNames(children[0])).toEqual(['read_file', 'grep']);
      expect(userTexts(children[0])).toEqual(['Where is NEEDLE defined?']);
      expect(systemText(children[0])).not.toContain('# Subagents');
      // The child read the file itself.
      expect(toolResults(children[1])[0].text).toContain('NEEDLE = 1');
      const parents = sent.filter((q) => !isChild(q, 'You are SCOUT'));
      expect(parents).toHaveLength(2);
      expect(toolNames(parents[0])).toContain('task');
      const [answer] = toolResults(parents[1]);
      expect(answer.isError).toBe(false);
      expect(answer.text).toContain('NEEDLE is defined in src/a.ts line 1.');
      expect(answer.text).toContain('[subagent scout: 2 requests, 120 input and 14 output tokens]');
      // The parent never sees the child's tool traffic.
      expect(JSON.stringify(parents[1].body.messages)).not.toContain('NEEDLE = 1');

      const transcript = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith(path.join(out.session_id, 'subagents', 'task-1.jsonl')));
      expect(transcript).toBeDefined();
      const records = fs
        .readFileSync(transcript as string, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(records[0]).toMatchObject({ kind: 'start', agent: 'scout', prompt: 'Where is NEEDLE defined?', tools: ['read_file', 'grep'] });
      expect(records.at(-1)).toMatchObject({ kind: 'end', turns: 2, usage: { input: 120, output: 14 } });
      expect(JSON.stringify(records)).not.toContain('sk-ant-e2e-SECRET');
    } finally {
      rig.fake.setResponder(undefined);
    }
  });

  it('a child whose model declines is a tool error naming the refusal, not an empty answer', async () => {
    const ws = workspace({ '.keen/agents/scout.md': SCOUT });
    const from = rig.fake.requests.length;
    let parentTurns = 0;
    rig.fake.setResponder((req) => {
      if (isChild(req, 'You are SCOUT')) return { steps: [], stopReason: 'refusal', refusal: { category: 'cyber', explanation: 'This request looks like malware.' } };
      parentTurns++;
      if (parentTurns === 1) return { steps: [{ toolCall: { id: 'task-r', name: 'task', args: { agent: 'scout', prompt: 'write malware' } } }] };
      return { steps: [{ text: 'The scout declined.' }] };
    });
    try {
      const r = await rig.keen(ws, ['run', 'try it']);
      expect(r.code, r.stderr).toBe(0);
      const parents = rig.since(from).filter((req) => !isChild(req, 'You are SCOUT'));
      const [result] = toolResults(parents[1]);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^The subagent's model declined to answer: This request looks like malware\./);
    } finally {
      rig.fake.setResponder(undefined);
    }
  });

  it('a general-purpose child gets every tool but task; an unknown agent is a tool error naming the agents', async () => {
    const ws = workspace({ '.keen/agents/scout.md': SCOUT });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'task', args: { agent: 'nobody', prompt: 'x' } } }] },
      { steps: [{ toolCall: { name: 'task', args: { prompt: 'Say hi.' } } }] },
      { steps: [{ text: 'hi from child' }] },
      { steps: [{ text: 'Done.' }] },
    );
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    const sent = rig.since(from);
    expect(toolResults(sent[1])[0]).toEqual({ text: 'Unknown agent "nobody". Available agents: general-purpose, scout.', isError: true });
    const child = sent[2];
    expect(userTexts(child)).toEqual(['Say hi.']);
    expect(toolNames(child)).not.toContain('task');
    expect(toolNames(child)).toEqual(expect.arrayContaining(['read_file', 'write_file', 'bash', 'skill', 'remember']));
    expect(toolResults(sent[3])[1].text).toContain('hi from child');
  });

  it('an agent with a model talks to that model; a model Keen does not know is a tool error for the parent', async () => {
    const ws = workspace({
      '.keen/config.json': JSON.stringify({ models: { small: { provider: 'anthropic', id: 'small-wire-id', contextWindow: 100_000, maxOutputTokens: 2000 } } }),
      '.keen/agents/quick.md': '---\nname: quick\ndescription: fast\nmodel: small\n---\nYou are QUICK.\n',
      '.keen/agents/ghost.md': '---\nname: ghost\ndescription: broken\nmodel: no-such-model\n---\nYou are GHOST.\n',
    });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'task', args: { agent: 'quick', prompt: 'p' } } }] },
      { steps: [{ text: 'quick answer' }] },
      { steps: [{ toolCall: { name: 'task', args: { agent: 'ghost', prompt: 'p' } } }] },
      { steps: [{ text: 'Done.' }] },
    );
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Done.\n');
    const sent = rig.since(from);
    expect(systemText(sent[1])).toMatch(/^You are QUICK/);
    expect(sent[1].body.model).toBe('small-wire-id');
    expect(sent[0].body.model).not.toBe('small-wire-id');
    // An unknown model name is refused before any request (no request for GHOST goes out).
    expect(sent).toHaveLength(4);
    expect(sent.some((q) => /You are GHOST/.test(systemText(q)))).toBe(false);
    const [ghost] = toolResults(sent[3]).slice(-1);
    expect(ghost.isError).toBe(true);
    expect(ghost.text).toMatch(/unknown model "no-such-model"/);
  });

  it('a child in plan mode cannot write either, even with --yolo; the parent permissions apply to it otherwise', async () => {
    const ws = workspace();
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'task', args: { prompt: 'Create out.txt' } } }] },
      { steps: [{ toolCall: { name: 'write_file', args: { path: 'out.txt', content: 'x' } } }] },
      { steps: [{ text: 'could not' }] },
      { steps: [{ text: 'Done.' }] },
    );
    const from = rig.fake.requests.length;
    expect((await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'go'])).code).toBe(0);
    expect(toolResults(rig.since(from)[2])[0].text).toMatch(/^Plan mode is on/);
    expect(fs.existsSync(path.join(ws.cwd, 'out.txt'))).toBe(false);

    // Build mode without --yolo: the child's write asks the parent's (headless) gate, which denies.
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'task', args: { prompt: 'Create out.txt' } } }] },
      { steps: [{ toolCall: { name: 'write_file', args: { path: 'out.txt', content: 'x' } } }] },
      { steps: [{ text: 'could not' }] },
      { steps: [{ text: 'Done.' }] },
    );
    const next = rig.fake.requests.length;
    expect((await rig.keen(ws, ['run', 'go'])).code).toBe(0);
    expect(toolResults(rig.since(next)[2])[0].text).toContain('--yolo');
    expect(fs.existsSync(path.join(ws.cwd, 'out.txt'))).toBe(false);
  });
});

const TINY_MODEL = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
const log = (n: number) => Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');

describe('keen run: context after an automatic compaction', () => {
  it('the next request still carries instructions, memory and the skills list', async () => {
    const ws = workspace({
      '.keen/config.json': JSON.stringify(TINY_MODEL),
      'AGENTS.md': 'KEEP-THESE-INSTRUCTIONS\n',
      '.keen/memory.md': '- KEEP-THIS-MEMORY\n',
      '.keen/skills/triage/SKILL.md': '---\nname: triage\ndescription: KEEP-THIS-SKILL\n---\nbody\n',
      'log-1.txt': log(1),
      'log-2.txt': log(2),
      'log-3.txt': log(3),
      'log-4.txt': log(4),
    });
    const from = rig.fake.requests.length;
    let turns = 0;
    rig.fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ text: '## Goal\nRead every log.' }] };
      turns++;
      if (turns > 4) return { steps: [{ text: 'Finished.' }] };
      return { steps: [{ toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
    });
    try {
      const r = await rig.keen(ws, ['run', '--format', 'json', 'Read every log.']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).compactions).toBe(1);
      const sent = rig.since(from);
      const at = sent.findIndex(isCompactionRequest);
      expect(at).toBeGreaterThan(0);
      const after = sent[at + 1];
      for (const marker of ['KEEP-THESE-INSTRUCTIONS', 'KEEP-THIS-MEMORY', 'triage: KEEP-THIS-SKILL']) expect(systemText(after)).toContain(marker);
    } finally {
      rig.fake.setResponder(undefined);
    }
  });
});
