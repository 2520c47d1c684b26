/**
 * The environment of commands the model runs, through the real bash tool: no credentials, and a
 * PATH whose relative entries (a repository's own folders) are gone, so an allow-listed `git`
 * cannot be a program the repository ships.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandEnv } from '../../src/tools/command-env.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { execFileSync } from 'node:child_process';

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

describe('commandEnv', () => {
  it('keeps only absolute PATH entries, so a repository-shipped git in a relative entry never runs', () => {
    ws = tempWorkspace({});
    const bin = path.join(ws.cwd, 'node_modules/.bin');
    fs.mkdirSync(bin, { recursive: true });
    const marker = path.join(ws.cwd, 'RAN');
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`, { mode: 0o755 });
    const env = commandEnv({ PATH: `node_modules/.bin${path.delimiter}${path.delimiter}.${path.delimiter}${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-ant-secret-value' });
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.PATH?.split(path.delimiter).every((e) => path.isAbsolute(e))).toBe(true);
    execFileSync('bash', ['-c', 'git --version >/dev/null 2>&1 || true'], { cwd: ws.cwd, env });
    expect(fs.existsSync(marker)).toBe(false);
  });
});
