/**
 * The order of the registry layers (src/agent/session-registry.ts), pinned by what a user would
 * notice if two of them traded places: a plan-mode refusal that kept an undo checkpoint or asked
 * for permission, a result the model saw that left no artifact to prune it to, a subagent's
 * outputs filling the parent's artifact store. Real tools, a real workspace, real checkpoints
 * and a real artifact store.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../src/agent/session-registry.js';
import { compileMatcher } from '../../src/hooks/matcher.js';
import { createSessionHooks } from '../../src/hooks/session-hooks.js';
import { planModeRefusal } from '../../src/project/agent-mode.js';
import { defaultTools } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import type { PermissionGate, PermissionRequest } from '../../src/tools/types.js';
import { ArtifactStore } from '../../src/transcript/artifacts.js';
import { FileCheckpoints, listManifests } from '../../src/undo/file-checkpoints.js';
import { tempDir } from '../kit/temp-dir.js';

/** A workspace holding a.txt, a session folder, the turn's checkpoints, and a gate that notes each question. */
async function rig(gate: PermissionGate) {
  const root = tempDir('keen-registry-order-');
  const cwd = path.join(root, 'ws');
  const session = path.join(root, 'session');
  await mkdir(cwd);
  await writeFile(path.join(cwd, 'a.txt'), 'before\n');
  const checkpoints = new FileCheckpoints(path.join(session, 'checkpoints'));
  checkpoints.beginTurn(1);
  const artifacts = await ArtifactStore.open(session, [], { fresh: true });
  const asked: PermissionRequest[] = [];
  const permissions: PermissionGate = { check: (request) => (asked.push(request), gate.check(request)) };
  let n = 0;
  const run = (registry: ReturnType<typeof buildRegistry>, name: string, args: unknown) =>
    registry.execute({ id: `call-${++n}`, name, args: JSON.stringify(args) }, { cwd, signal: new AbortController().signal, permissions });
  const kept = async () => (await listManifests(checkpoints.dir)).flatMap((m) => m.files.map((f) => f.path));
  return { cwd, checkpoints, artifacts, asked, run, kept };
}

const allowAll = createHeadlessGate({ yolo: true });
const denyWrites = createHeadlessGate({});

describe('the registry builder’s layer order', () => {
  it('plan mode refuses a write before the checkpoint and the gate: nothing kept, nothing asked, the file unchanged', async () => {
    const r = await rig(allowAll);
    const registry = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => true, artifacts: r.artifacts });
    const result = await r.run(registry, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(result).toMatchObject({ is_error: true, content: planModeRefusal('write_file') });
    expect(r.asked).toEqual([]);
    expect(await r.kept()).toEqual([]);
    expect(await readFile(path.join(r.cwd, 'a.txt'), 'utf8')).toBe('before\n');
  });

  it('artifacts are outermost: every result the model sees is stored once, the plan-mode refusal included', async () => {
    const r = await rig(allowAll);
    let planning = true;
    const registry = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => planning, artifacts: r.artifacts });
    const refused = await r.run(registry, 'write_file', { path: 'a.txt', content: 'after\n' });
    planning = false;
    const written = await r.run(registry, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(written.is_error).toBeFalsy();
    for (const result of [refused, written]) {
      expect(result.artifact_ref).toBeGreaterThan(0);
      expect(await r.artifacts.get(result.artifact_ref as number)).toBe(result.content);
    }
    expect(refused.artifact_ref).not.toBe(written.artifact_ref);
  });

  it('a permitted write is checkpointed before it runs: the kept state is the file before the write', async () => {
    const r = await rig(allowAll);
    const registry = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => false, artifacts: r.artifacts });
    const result = await r.run(registry, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(result.is_error).toBeFalsy();
    expect(r.asked.map((q) => q.tool)).toEqual(['write_file']);
    expect(await r.kept()).toEqual([path.join(r.cwd, 'a.txt')]);
    const [manifest] = await listManifests(r.checkpoints.dir);
    expect(manifest.files[0].before).not.toBeNull();
    expect(manifest.files[0].after).toBeTruthy();
    expect(await readFile(path.join(r.cwd, 'a.txt'), 'utf8')).toBe('after\n');
  });

  it('checkpoints sit outside the gate: a denied write keeps an entry an undo finds unchanged, and its refusal is stored', async () => {
    const r = await rig(denyWrites);
    const registry = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => false, artifacts: r.artifacts });
    const result = await r.run(registry, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(result.is_error).toBe(true);
    expect(r.asked.map((q) => q.tool)).toEqual(['write_file']);
    expect(await r.kept()).toEqual([path.join(r.cwd, 'a.txt')]);
    const [manifest] = await listManifests(r.checkpoints.dir);
    expect(manifest.files[0].after ?? null).toBeNull();
    expect(result.artifact_ref).toBeGreaterThan(0);
    expect(await readFile(path.join(r.cwd, 'a.txt'), 'utf8')).toBe('before\n');
  });

  it('plan mode lets a read through (and the read asks nothing inside the workspace)', async () => {
    const r = await rig(denyWrites);
    const registry = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => true, artifacts: r.artifacts });
    const result = await r.run(registry, 'read_file', { path: 'a.txt' });
    expect(result.is_error).toBeFalsy();
    expect(result.content).toContain('before');
    expect(await r.kept()).toEqual([]);
  });

  it('a subagent’s registry (no artifact sink) stores nothing, and still checkpoints its writes', async () => {
    const r = await rig(allowAll);
    const registry = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => false });
    const result = await r.run(registry, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(result.is_error).toBeFalsy();
    expect(result.artifact_ref).toBeUndefined();
    expect(await r.artifacts.get(1)).toBeUndefined();
    expect(await r.kept()).toEqual([path.join(r.cwd, 'a.txt')]);
  });

  it('hooks sit outside plan mode, checkpoints and the gate: a PreToolUse block asks nobody and keeps nothing; an allow reaches the gate', async () => {
    const r = await rig(denyWrites);
    const hooks = (command: string) =>
      createSessionHooks({
        cwd: r.cwd,
        env: { PATH: process.env.PATH },
        entries: [{ event: 'PreToolUse', matches: compileMatcher('Write'), command, timeoutSeconds: 10, file: 'config.json' }],
        warn: () => undefined,
      });
    const blocking = buildRegistry({
      tools: defaultTools(),
      checkpoints: r.checkpoints,
      planning: () => true,
      artifacts: r.artifacts,
      hooks: hooks('echo "not in this repo" >&2; exit 2'),
    });
    const refused = await r.run(blocking, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(refused).toMatchObject({ is_error: true, content: 'Blocked by a PreToolUse hook: not in this repo' });
    expect(refused.artifact_ref).toBeGreaterThan(0);
    expect(r.asked).toEqual([]);
    expect(await r.kept()).toEqual([]);

    const allow = `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`;
    const allowing = buildRegistry({ tools: defaultTools(), checkpoints: r.checkpoints, planning: () => false, artifacts: r.artifacts, hooks: hooks(allow) });
    const written = await r.run(allowing, 'write_file', { path: 'a.txt', content: 'after\n' });
    expect(written.is_error).toBeFalsy();
    expect(r.asked.map((q) => q.hook)).toEqual([{ verdict: 'allow' }]);
    expect(await r.kept()).toEqual([path.join(r.cwd, 'a.txt')]);
    expect(await readFile(path.join(r.cwd, 'a.txt'), 'utf8')).toBe('after\n');
  });
});
