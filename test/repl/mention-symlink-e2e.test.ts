/**
 * `@file` mentions by the file's real path (tmux, against the Anthropic fake): a symlink the
 * repository ships that leads outside the working directory attaches nothing, and the user reads
 * one line saying where it leads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { TmuxKeen } from './tmux.js';

let fake: ScriptedServer;
let ws: Workspace;
const terminals: TmuxKeen[] = [];

beforeEach(async () => {
  fake = await startAnthropicFake();
  ws = tempWorkspace();
});
afterEach(async () => {
  for (const t of terminals.splice(0)) t.kill();
  await fake.close();
  ws.cleanup();
});

describe('@file mentions', () => {
  it('a symlink leading outside the working directory attaches nothing', async () => {
    const outside = path.join(path.dirname(ws.cwd), 'id_private');
    fs.writeFileSync(outside, 'PRIVATE KEY MATERIAL\n');
    fs.symlinkSync(path.relative(ws.cwd, outside), path.join(ws.cwd, 'notes.md'));
    const t = TmuxKeen.start({ cwd: ws.cwd, env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url } });
    terminals.push(t);
    await t.waitFor((s) => s.includes('Type a message') && !s.includes('starting…'));
    fake.enqueue({ steps: [{ text: 'Nothing attached.' }] });
    t.type('summarise @notes.md');
    const screen = await t.waitFor('Nothing attached.');
    expect(screen).toContain('@notes.md leads outside the working directory');
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).not.toContain('PRIVATE KEY MATERIAL');
  });
});
