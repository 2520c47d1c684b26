/**
 * Issue 26: `!command` runs a shell command directly, as Claude Code's bash mode does. In a real
 * terminal (tmux): the command runs without a model request, shows as a bash card, and its output
 * reaches the model with the next message; a deny rule stops it; plan mode's read-only sandbox
 * holds; a pasted `!…` is a message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itSandbox } from '../kit/sandbox.js';
import { useTmuxRig } from './tmux.js';
import { paste } from './tmux-paste.js';

const rig = useTmuxRig();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function userTexts(body: { messages: { role: string; content: string | { type: string; text?: string }[] }[] }): string[] {
  return body.messages
    .filter((m) => m.role === 'user')
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.filter((c) => c.type === 'text').map((c) => c.text ?? '')));
}

describe('!command in the REPL', () => {
  it('runs at once as a bash card, and the model sees its output with the next message', async () => {
    fs.writeFileSync(path.join(rig.ws.cwd, 'notes.txt'), 'marker-4711\n');
    rig.fake.enqueue({ steps: [{ text: 'I see the marker.' }] });
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('!cat notes.txt && echo made > made.txt');
    const card = await t.waitFor((s) => /✓ bash cat notes\.txt/.test(s) && s.includes('marker-4711'));
    expect(card).toContain('› !cat notes.txt');
    expect(card).not.toContain('Allow bash?');
    expect(fs.readFileSync(path.join(rig.ws.cwd, 'made.txt'), 'utf8')).toBe('made\n');
    await sleep(200);
    expect(rig.fake.requests).toHaveLength(0);

    t.type('what did the file say?');
    await t.waitFor('I see the marker.');
    const texts = userTexts(rig.fake.requests[0].body);
    expect(texts.some((x) => x.includes('cat notes.txt') && x.includes('marker-4711') && x.includes('[exit code 0]'))).toBe(true);
    expect(texts[texts.length - 1]).toBe('what did the file say?');
  });

  it('a deny rule stops it, as it stops the bash tool', async () => {
    fs.writeFileSync(path.join(rig.ws.home, 'config.json'), JSON.stringify({ permissions: { deny: ['bash(rm:*)'] } }));
    fs.writeFileSync(path.join(rig.ws.cwd, 'keep.txt'), 'keep\n');
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('!rm -f keep.txt');
    const screen = await t.waitFor('Permission denied');
    expect(screen).toContain('bash(rm:*)');
    expect(fs.existsSync(path.join(rig.ws.cwd, 'keep.txt'))).toBe(true);
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('an ask rule still asks, and No runs nothing', async () => {
    fs.writeFileSync(path.join(rig.ws.home, 'config.json'), JSON.stringify({ permissions: { ask: ['bash(touch:*)'] } }));
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('!touch asked.txt');
    await t.waitFor('Allow bash?');
    await t.answer('n');
    await t.waitFor(/✗ bash touch asked\.txt/);
    expect(fs.existsSync(path.join(rig.ws.cwd, 'asked.txt'))).toBe(false);
    expect(rig.fake.requests).toHaveLength(0);
  });

  itSandbox("plan mode's read-only sandbox applies", async () => {
    const t = rig.start({ args: ['--permission-mode', 'plan'] });
    await t.waitFor('Type a message');
    t.type('!touch planned.txt; echo after-touch');
    // stdout and stderr arrive on two pipes, so their order on screen is not fixed.
    const screen = await t.waitFor(/⎿[\s\S]*\[exit code/);
    expect(screen).toMatch(/⎿[\s\S]*after-touch[\s\S]*\[exit code/);
    expect(screen).toMatch(/cannot touch 'planned\.txt': Read-only file system/);
    expect(fs.existsSync(path.join(rig.ws.cwd, 'planned.txt'))).toBe(false);
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('Esc stops a running command; nothing of it joins the conversation', async () => {
    rig.fake.enqueue({ steps: [{ text: 'Fine.' }] });
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('!echo started-long; sleep 30; echo never-printed');
    await t.waitFor('○ bash echo started-long');
    t.keys('Escape');
    await t.waitFor('Interrupted');
    t.type('next');
    await t.waitFor('Fine.');
    expect(JSON.stringify(rig.fake.requests[0].body.messages)).not.toContain('started-long');
  });

  it('a pasted `!…` is a message, never a command', async () => {
    rig.fake.enqueue({ steps: [{ text: 'Got the paste.' }] });
    const t = rig.start();
    // Bracketed paste is switched on once the REPL has mounted (the first frame comes before it).
    await t.waitFor(/context · session/);
    paste(t, '!touch pasted.txt');
    await t.waitFor('!touch pasted.txt');
    t.keys('Enter');
    await t.waitFor('Got the paste.');
    expect(fs.existsSync(path.join(rig.ws.cwd, 'pasted.txt'))).toBe(false);
    expect(userTexts(rig.fake.requests[0].body)).toContain('!touch pasted.txt');
  });
});
