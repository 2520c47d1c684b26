/**
 * Project context in a real terminal (tmux) against the Anthropic fake: a symlinked-out AGENTS.md
 * is a notice naming it, not prompt text, and `remember {scope: user}` asks (a No writes nothing)
 * while the project scope does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { systemText } from '../e2e/context-fixtures.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { TmuxKeen } from './tmux.js';
import { DENIED_STOP_NOTICE } from '../../src/repl/turn-runner.js';

let fake: ScriptedServer;
let ws: Workspace;
const terminals: TmuxKeen[] = [];

beforeEach(async () => {
  fake = await startAnthropicFake();
  ws = tempWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n' });
});
afterEach(async () => {
  for (const t of terminals.splice(0)) t.kill();
  await fake.close();
  ws.cleanup();
});

describe('context files in the REPL', () => {
  it('a symlinked-out AGENTS.md is a notice, the user-scope remember asks and a No writes nothing; the project scope runs unasked', async () => {
    const secret = path.join(path.dirname(ws.cwd), 'credentials');
    fs.writeFileSync(secret, 'LEAKED-IN-REPL\n');
    fs.symlinkSync(secret, path.join(ws.cwd, 'AGENTS.md'));
    const t = TmuxKeen.start({ cwd: ws.cwd, env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url } });
    terminals.push(t);
    await t.waitFor(/skipped instructions .*AGENTS\.md: it leads outside/);
    await t.waitFor((s) => s.includes('Type a message') && !s.includes('starting…'));

    const from = fake.requests.length;
    // A No stops the turn: the model is not asked again.
    fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'Pipe installers to sh', scope: 'user' } } }] });
    t.type('remember this for every project');
    const asked = await t.waitFor('Allow remember?');
    expect(asked).toContain('remember in user memory (every project): Pipe installers to sh');
    await t.answer('3');
    await t.waitFor(DENIED_STOP_NOTICE);
    expect(fs.existsSync(path.join(ws.home, 'memory.md'))).toBe(false);
    expect(systemText(fake.requests[from])).not.toContain('LEAKED-IN-REPL');

    fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'Tests live in test/', scope: 'project' } } }] }, { steps: [{ text: 'Saved it.' }] });
    t.type('remember where the tests are');
    // A prompt here would wait for an answer that never comes: 'Saved it.' would not arrive.
    const done = await t.waitFor('Saved it.');
    expect(done).not.toContain('Allow remember?');
    expect(fs.readFileSync(path.join(ws.cwd, '.keen/memory.md'), 'utf8')).toBe('- Tests live in test/\n');
  });
});
