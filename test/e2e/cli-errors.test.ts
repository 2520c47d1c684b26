/**
 * User mistakes end to end: each is one `keen: …` line naming the thing at fault, a non-zero
 * exit, no stack trace, nothing sent to the model and no session left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, useCliRig } from './cli-fixtures.js';
import type { RunResult } from './harness.js';

const { rig, workspace } = useCliRig();

/** The run failed with exactly one `keen:` line on stderr and nothing on stdout. */
function expectOneLineFailure(r: RunResult): string {
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^keen: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

describe('a bad config file', () => {
  const cases: { name: string; text: string; field: RegExp }[] = [
    { name: 'invalid JSON', text: '{"model": "claude-opus-5",', field: /invalid JSON/ },
    { name: 'an unknown field', text: '{"modle": "claude-opus-5"}', field: /unknown field modle\b/ },
    { name: 'a wrong type', text: '{"compaction": {"threshold": "high"}}', field: /field compaction\.threshold: .*expected number/ },
  ];

  for (const c of cases) {
    it(`in .keen/config.json: ${c.name} → one line naming file and field, non-zero, nothing sent`, async () => {
      const ws = workspace({ '.keen/config.json': c.text });
      const from = rig.fake.requests.length;
      const line = expectOneLineFailure(await rig.keen(ws, ['run', 'hello']));
      expect(line).toContain(path.join(ws.cwd, '.keen', 'config.json'));
      expect(line).toMatch(c.field);
      expect(rig.since(from)).toHaveLength(0);
      expect(filesUnder(path.join(ws.home, 'sessions'))).toEqual([]);
    });
  }

  it('in $KEEN_HOME/config.json the user file is the one named', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), '{"maxTurns": -3}');
    const line = expectOneLineFailure(await rig.keen(ws, ['run', 'hello']));
    expect(line).toContain(path.join(ws.home, 'config.json'));
    expect(line).toMatch(/field maxTurns/);
  });

  it('a malformed permissions.allow rule fails before any session is created', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ permissions: { allow: ['bash(npm test'] } }) });
    const line = expectOneLineFailure(await rig.keen(ws, ['run', 'hello']));
    expect(line).toMatch(/permissions\.allow\[0\]/);
    expect(line).toContain('.keen/config.json');
    expect(filesUnder(path.join(ws.home, 'sessions'))).toEqual([]);
  });

  it('is reported before `--continue` looks for a session', async () => {
    const ws = workspace({ '.keen/config.json': '{"model": 5}' });
    const line = expectOneLineFailure(await rig.keen(ws, ['run', '--continue', 'again']));
    expect(line).toMatch(/field model: /);
  });
});

describe('no API key', () => {
  for (const args of [
    ['run', 'hello'],
    ['-p', 'hello'],
  ]) {
    it(`keen ${args.join(' ')}: one line naming ANTHROPIC_API_KEY and --provider, no session directory`, async () => {
      const ws = workspace();
      const from = rig.fake.requests.length;
      const r = await rig.keen(ws, args, { env: { ANTHROPIC_API_KEY: undefined } });
      const line = expectOneLineFailure(r);
      expect(line).toContain('ANTHROPIC_API_KEY');
      expect(line).toContain('--provider');
      expect(rig.since(from)).toHaveLength(0);
      expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
    });
  }

  for (const args of [
    ['run', '--format', 'json', 'hello'],
    ['-p', '--output-format', 'stream-json', 'hello'],
  ]) {
    it(`keen ${args.join(' ')}: still one JSON result object on stdout (is_error, error, subtype), one line on stderr`, async () => {
      const ws = workspace();
      const r = await rig.keen(ws, args, { env: { ANTHROPIC_API_KEY: undefined } });
      expect(r.code).toBe(1);
      const lines = r.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const out = JSON.parse(lines[0]);
      expect(out).toMatchObject({ type: 'result', subtype: 'error_startup', is_error: true, session_id: null });
      expect(out.error.message).toContain('ANTHROPIC_API_KEY');
      expect(r.stderr.trim().split('\n')).toEqual([`keen: ${out.error.message}`]);
      expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
    });
  }

  it('an empty ANTHROPIC_API_KEY counts as missing', async () => {
    const ws = workspace();
    const line = expectOneLineFailure(await rig.keen(ws, ['run', 'hello'], { env: { ANTHROPIC_API_KEY: '' } }));
    expect(line).toContain('ANTHROPIC_API_KEY');
  });
});

describe('bad flags', () => {
  it('an unknown --provider lists the valid ones', async () => {
    const ws = workspace();
    const line = expectOneLineFailure(await rig.keen(ws, ['run', '--provider', 'claude', 'hello']));
    expect(line).toMatch(/unknown provider "claude"/);
    expect(line).toContain('anthropic');
    expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
  });

  it('--yolo with another --permission-mode is refused, not settled for the less careful one', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '--yolo', '--permission-mode', 'plan', 'hello']);
    expect(expectOneLineFailure(r)).toMatch(/--yolo and --permission-mode plan contradict/);
    expect(r.code).toBe(2);
    expect(rig.since(from)).toHaveLength(0);
    expect(filesUnder(path.join(ws.home, 'sessions'))).toEqual([]);
    // The same setting twice is no contradiction.
    rig.fake.enqueue({ steps: [{ text: 'fine' }] });
    const same = await rig.keen(ws, ['run', '--yolo', '--permission-mode', 'bypassPermissions', 'hello']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('fine');
  });

  it('an invalid --format is refused before anything runs', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '--format', 'yaml', 'hello']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/yaml/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(rig.since(from)).toHaveLength(0);
  });
});
