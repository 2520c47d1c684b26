import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactRegistry } from '../../src/compaction/artifact-registry.js';
import { ArtifactStore } from '../../src/transcript/artifacts.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import { createRecallTool } from '../../src/tools/recall.js';
import { tempDir } from '../kit/temp-dir.js';

const ctx = (cwd: string) => ({ cwd, signal: new AbortController().signal, permissions: createHeadlessGate({ yolo: false, allow: [] }) });

describe('artifact store', () => {
  it('numbers outputs per session, continues after a resume, never overwrites, 0600 files in a 0700 folder, secrets redacted', async () => {
    const session = tempDir('keen-artifacts-');
    const a = await ArtifactStore.open(session, ['sk-secret-123456']);
    expect(await a.put('first')).toBe(1);
    expect(await a.put('key sk-secret-123456 here')).toBe(2);
    fs.writeFileSync(path.join(session, 'artifacts', '3.txt'), 'someone else'); // an existing file is never overwritten
    expect(await a.put('third')).toBe(4);
    expect(fs.readFileSync(path.join(session, 'artifacts', '3.txt'), 'utf8')).toBe('someone else');
    expect(await a.get(2)).toBe('key [REDACTED] here');
    expect(fs.statSync(path.join(session, 'artifacts', '1.txt')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(session, 'artifacts')).mode & 0o777).toBe(0o700);
    const resumed = await ArtifactStore.open(session, []);
    expect(await resumed.put('after resume')).toBe(5);
    expect(await resumed.get(99)).toBeUndefined();
    expect(await resumed.get(0)).toBeUndefined();
  });
});

describe('artifact store of a new session (fresh: the folder is not listed)', () => {
  it('numbers from 1 and creates the folder with the first output; a file already there is never overwritten', async () => {
    const session = path.join(tempDir('keen-artifacts-'), 'new-session');
    const fresh = await ArtifactStore.open(session, [], { fresh: true });
    expect(fs.existsSync(session)).toBe(false);
    expect(await fresh.put('first')).toBe(1);
    expect(fs.readFileSync(path.join(session, 'artifacts', '1.txt'), 'utf8')).toBe('first');

    // Even opened as fresh by mistake, a folder that holds outputs keeps them: the next number is taken.
    const again = await ArtifactStore.open(session, [], { fresh: true });
    expect(await again.put('second')).toBe(2);
    expect(fs.readFileSync(path.join(session, 'artifacts', '1.txt'), 'utf8')).toBe('first');
  });
});

describe('artifact registry and recall', () => {
  it('stamps every tool output with its artifact, recall reads it back whole or by lines, and is not stored again', async () => {
    const cwd = tempDir('keen-artifacts-');
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    const store = await ArtifactStore.open(tempDir('keen-artifacts-'), []);
    const registry = artifactRegistry(createDefaultRegistry(undefined, [createRecallTool((n) => store.get(n))]), store);
    const read = await registry.execute({ id: 'c1', name: 'read_file', args: '{"path":"a.txt"}' }, ctx(cwd));
    expect(read.artifact_ref).toBe(1);
    expect(await store.get(1)).toBe(read.content);
    const whole = await registry.execute({ id: 'c2', name: 'recall', args: '{"artifact":"artifact#1"}' }, ctx(cwd));
    expect(whole).toMatchObject({ content: read.content, artifact_ref: 1 });
    expect(whole.is_error).toBeUndefined();
    const part = await registry.execute({ id: 'c3', name: 'recall', args: '{"artifact":1,"start_line":2,"end_line":3}' }, ctx(cwd));
    expect(part.content).toBe(read.content.split('\n').slice(1, 3).join('\n'));
    expect(fs.readdirSync(store.dir)).toEqual(['1.txt']); // recall results are not stored again
    const missing = await registry.execute({ id: 'c4', name: 'recall', args: '{"artifact":"artifact#9"}' }, ctx(cwd));
    expect(missing).toMatchObject({ is_error: true, content: 'recall: artifact#9 does not exist in this session' });
    expect(missing.artifact_ref).toBeUndefined();
    const bad = await registry.execute({ id: 'c5', name: 'recall', args: '{"artifact":"../../etc/passwd"}' }, ctx(cwd));
    expect(bad).toMatchObject({ is_error: true });
    expect(bad.content).toMatch(/is not an artifact handle/);
    const past = await registry.execute({ id: 'c6', name: 'recall', args: '{"artifact":1,"start_line":50}' }, ctx(cwd));
    expect(past.content).toMatch(/has \d+ lines; start_line 50 is past the end/);
  });

  it('a failed artifact write costs only the handle: the tool result comes back unchanged', async () => {
    const cwd = tempDir('keen-artifacts-');
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'data\n');
    const registry = artifactRegistry(createDefaultRegistry(), { put: async () => Promise.reject(new Error('ENOSPC: no space left on device')) });
    const result = await registry.execute({ id: 'c1', name: 'read_file', args: '{"path":"a.txt"}' }, ctx(cwd));
    expect(result.is_error).toBeUndefined();
    expect(result.content).toContain('data');
    expect(result.artifact_ref).toBeUndefined();
  });
});

describe('prune records on replay', () => {
  it('replace the named outputs in order; an entry whose index does not hold that call is skipped', async () => {
    const { buildConversation } = await import('../../src/transcript/projection.js');
    const { validateRecord } = await import('../../src/transcript/records.js');
    const env = (seq: number) => ({ seq, ts: '2025-03-01T14:22:33.031Z' });
    const raw = [
      { ...env(1), kind: 'session_started', format: 1, session_id: 's', cwd: '/w', provider: 'anthropic', model: 'm', keen_version: '0' },
      { ...env(2), kind: 'user_message', message: { role: 'user', content: 'go' } },
      {
        ...env(3),
        kind: 'assistant_turn',
        text: '',
        tools: [],
        usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
        messages: [
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'a', name: 'read_file', args: '{}' },
              { id: 'b', name: 'read_file', args: '{}' },
            ],
          },
          { role: 'tool', tool_call_id: 'a', name: 'read_file', content: 'AAA', artifact_ref: 1 },
          { role: 'tool', tool_call_id: 'b', name: 'read_file', content: 'BBB', artifact_ref: 2 },
        ],
      },
      {
        ...env(4),
        kind: 'prune_applied',
        pruned: [
          { index: 2, tool_call_id: 'a', artifact: 1, content: '[artifact#1] …' },
          { index: 2, tool_call_id: 'b', artifact: 2, content: 'WRONG' },
        ],
      },
    ];
    const records = raw.map((r) => {
      const v = validateRecord(r);
      if (!v.ok) throw new Error(v.reason);
      return v.record;
    });
    const history = buildConversation(records);
    expect(history[2]).toMatchObject({ tool_call_id: 'a', content: '[artifact#1] …', artifact_ref: 1 });
    expect(history[3]).toMatchObject({ tool_call_id: 'b', content: 'BBB' });
    expect(validateRecord({ ...env(5), kind: 'prune_applied', pruned: [{ index: -1, tool_call_id: 'a', artifact: 1, content: 'x' }] })).toMatchObject({ ok: false });
  });
});
