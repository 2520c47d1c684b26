/**
 * Images from the terminal (tmux, against the Anthropic fake): `@shot.png` attaches the image, a
 * dragged file's path pasted with backslash-escaped spaces does too, and a model that takes no
 * images gets the text with one notice line saying so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { png } from '../kit/png-bytes.js';
import { TmuxKeen } from './tmux.js';
import { paste } from './tmux-paste.js';

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

/** The user turn's blocks of the last request (without the prompt-cache marker). */
function lastUserBlocks(): any[] {
  const messages: any[] = fake.requests.at(-1)!.body.messages;
  return messages
    .filter((m) => m.role === 'user')
    .at(-1)
    .content.map(({ cache_control: _c, ...b }: any) => b);
}

function start(args: string[] = []): TmuxKeen {
  const t = TmuxKeen.start({ cwd: ws.cwd, args, env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url } });
  terminals.push(t);
  return t;
}

describe('images in the REPL', () => {
  it('@shot.png and a pasted dragged path (escaped spaces, outside the project) attach the images', async () => {
    const shot = png(32, 16);
    fs.writeFileSync(path.join(ws.cwd, 'shot.png'), shot);
    const dragged = path.join(path.dirname(ws.cwd), 'Screen Shot 1.png');
    const other = png(8, 8);
    fs.writeFileSync(dragged, other);
    const t = start();
    await t.waitFor((s) => s.includes('Type a message') && !s.includes('starting…'));

    fake.enqueue({ steps: [{ text: 'A black bar.' }] }, { steps: [{ text: 'A small square.' }] });
    t.type('what is this @shot.png');
    const screen = await t.waitFor('A black bar.');
    expect(screen).toContain('attached: @shot.png (PNG, ');
    expect(lastUserBlocks()).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot.toString('base64') } },
      { type: 'text', text: 'what is this @shot.png' },
    ]);

    paste(t, dragged.replaceAll(' ', '\\ '));
    await t.waitFor('Shot\\ 1.png');
    t.type(' and this?');
    await t.waitFor('A small square.');
    const blocks = lastUserBlocks();
    expect(blocks[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: other.toString('base64') } });
    expect(blocks[1].text).toContain('Screen\\ Shot\\ 1.png and this?');
  });

  it('a model that takes no images: the text goes, and one line says the image did not', async () => {
    fs.writeFileSync(path.join(ws.cwd, 'shot.png'), png(4, 4));
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { 'text-only': { provider: 'anthropic', id: 'claude-text', images: false } } }));
    const t = start(['--model', 'text-only']);
    await t.waitFor((s) => s.includes('Type a message') && !s.includes('starting…'));
    fake.enqueue({ steps: [{ text: 'No picture here.' }] });
    t.type('what is this @shot.png');
    const screen = await t.waitFor('No picture here.');
    expect(screen).toContain('model text-only takes no images; the image was not attached');
    expect(lastUserBlocks()).toEqual([{ type: 'text', text: 'what is this @shot.png' }]);
  });
});
