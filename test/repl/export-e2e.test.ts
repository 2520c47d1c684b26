/**
 * `/export [FILE]` in a real terminal (tmux) against the Anthropic fake: before anything is on
 * disk it says so; after a turn it writes the page of the session (escaped text, one plot point),
 * with no model call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

describe('/export', () => {
  it('says there is nothing yet, then writes the session page after a turn', async () => {
    const t = rig.start();
    await t.waitFor((s) => s.includes('Type a message') && !s.includes('starting…'));
    t.type('/export');
    await t.waitFor('Nothing to export yet');

    rig.fake.enqueue({ steps: [{ text: 'Hello <b>there</b>.' }] });
    t.type('say hello');
    await t.waitFor('Hello <b>there</b>.');
    const from = rig.fake.requests.length;
    t.type('/export page.html');
    await t.waitFor('Exported the session to');
    const html = fs.readFileSync(path.join(rig.ws.cwd, 'page.html'), 'utf8');
    expect(html).toContain('Hello &lt;b&gt;there&lt;/b&gt;.');
    expect(html).toContain('<div class="text">say hello</div>');
    expect(html.match(/<circle class="point"/g)).toHaveLength(1);
    expect(rig.fake.requests.length).toBe(from);
  });
});
