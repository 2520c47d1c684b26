/**
 * Seeing progress in a real terminal (tmux): the loader's status line (what runs, for how long,
 * tokens so far), the footer's context figure against `/context`, the session picker at 60
 * columns, and Markdown's blank lines, heading levels and wide tables. Needs `npm run build`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/transcript/store.js';
import { afterToolResult, isCompactionRequest, lastUserText } from './fake-requests.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

const idle = (s: string) => s.includes('Type a message') && !/Thinking|Responding|Compacting|Running/.test(s.split('\n').slice(-8).join('\n'));
const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `word${from + i}`).join(' ');

/** The loader line on screen (`⠋ Thinking… 3s …`), or ''. */
function loaderLine(screen: string): string {
  return screen.split('\n').find((l) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(l)) ?? '';
}

describe('seeing progress', () => {
  it('the status line says Thinking… then Responding…, with seconds and tokens that grow', async () => {
    // A slow first token, then an answer streamed in pieces: the figures must appear and grow.
    const pieces = Array.from({ length: 12 }, (_, i) => [{ text: `${words(40, i * 40)}\n` }, { delayMs: 400 }]).flat();
    rig.fake.setResponder(() => ({ steps: [{ delayMs: 2_500 }, ...pieces, { text: 'All done.' }] }));
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('tell me');
    const thinking = loaderLine(await t.waitFor((s) => /Thinking… [1-9]\d*s/.test(loaderLine(s))));
    expect(thinking).toMatch(/^. Thinking… \d+s \(ctrl\+c to interrupt\)$/);
    const first = /Responding… (\d+)s · ↓ (\d+) tokens/.exec(loaderLine(await t.waitFor((s) => /Responding… \d+s · ↓ \d+ tokens/.test(loaderLine(s)))))!;
    const later = /Responding… (\d+)s · ↓ (\d+(?:\.\d)?k?) tokens/.exec(
      loaderLine(
        await t.waitFor((s) => {
          const m = /Responding… (\d+)s · ↓ (\d+(?:\.\d)?)(k?) tokens/.exec(loaderLine(s));
          return !!m && Number(m[1]) > Number(first[1]) && (m[3] === 'k' || Number(m[2]) > Number(first[2]));
        }),
      ),
    );
    expect(later).not.toBeNull();
    expect(Number(first[1])).toBeGreaterThanOrEqual(2);
    await t.waitFor((s) => s.includes('All done.') && idle(s));
  }, 60_000);

  it('after a skipped automatic compaction the footer and /context show the same share of the window; the bar is coloured', async () => {
    writeFileSync(path.join(rig.ws.cwd, 'big.txt'), Array.from({ length: 600 }, (_, i) => `line ${i} of the big file with some words in it`).join('\n'));
    mkdirSync(path.join(rig.ws.cwd, '.keen'), { recursive: true });
    writeFileSync(
      path.join(rig.ws.cwd, '.keen', 'config.json'),
      JSON.stringify({ models: { tiny: { provider: 'anthropic', contextWindow: 8000, maxOutputTokens: 1000 } }, model: 'tiny' }),
    );
    rig.fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ hold: true }, { text: 'SUMMARY' }] };
      if (afterToolResult(req)) return { steps: [{ text: 'Finished reading.' }] };
      return { steps: [{ text: `Reading for ${lastUserText(req)}.` }, { toolCall: { name: 'read_file', args: { path: 'big.txt' } } }] };
    });
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('first read');
    const compacting = loaderLine(await t.waitFor((s) => loaderLine(s).includes('Compacting')));
    t.keys('Escape');
    await t.waitFor((s) => s.includes('Finished reading.') && idle(s));
    t.type('/context');
    const screen = await t.waitFor((s) => s.includes('No compactions yet.') && idle(s));
    const footer = Number(/ (\d+)% context/.exec(screen)![1]);
    const report = Number(/[\d,]+ of 8,000 tokens \(([\d.]+)%\)/.exec(screen)![1]);
    expect(footer).toBe(Math.round(report));
    // Each part of the bar in a colour of its own.
    const bar = t
      .capture(true)
      .split('\n')
      .find((l) => l.includes('[') && l.includes('▚'))!;
    const colours = new Set([...bar.matchAll(/\x1b\[([0-9;]*3[0-7])m/g)].map((m) => m[1]));
    expect(colours.size).toBeGreaterThanOrEqual(3);
    // The compaction said what it summarises.
    expect(compacting).toMatch(/Compacting\.\.\. \d+s · summarising \d+(\.\d)?k tokens \(esc to cancel\)/);
  }, 60_000);

  it('the session picker is one line per session at 60 columns, keeps its title and selection in view, and filters as you type', async () => {
    for (let i = 0; i < 12; i++) {
      const store = await SessionStore.create(rig.ws.home, { cwd: rig.ws.cwd, provider: 'anthropic', model: 'claude-sonnet-4-5', keenVersion: 'test', fsync: false, env: {} });
      const topic = i === 7 ? 'zebra migration' : `topic number ${i}`;
      await store.append({ kind: 'user_message', message: { role: 'user', content: `Please look into the ${topic} and explain in detail what the code does there` } });
      await store.append({
        kind: 'assistant_turn',
        text: `About ${topic}.`,
        tools: [],
        usage: { input: 10, output: 5, cache_read: 0, cache_write: 0 },
        messages: [{ role: 'assistant', content: `About ${topic}.` }],
      });
      await store.close();
    }
    rig.fake.setResponder(() => ({ steps: [{ text: 'Resumed answer.' }] }));
    const t = rig.start({ args: ['--resume'], width: 60, height: 30 });
    const shown = await t.waitFor('Resume a session');
    const screen = t.screen();
    expect(screen).toContain('Resume a session');
    const rows = screen.split('\n').filter((l) => /Please look into/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.some((l) => l.includes('❯'))).toBe(true);
    // One line each: every row shows its age and the start of its prompt, no row wraps.
    for (const l of screen.split('\n')) expect(stringWidth(l)).toBeLessThanOrEqual(60);
    expect(screen.split('\n').filter((l) => /explain in detail/.test(l))).toHaveLength(0);
    expect(shown).not.toContain('what the code does there');

    t.type('zebra', false);
    const filtered = await t.waitFor((s) => s.includes('zebra') && s.split('\n').filter((l) => /Please look into/.test(l)).length === 1);
    expect(filtered).not.toContain('topic number');
    t.keys('Enter');
    const resumed = await t.waitFor('Resumed session');
    expect(resumed).toContain('About zebra migration.');
  }, 60_000);

  it('Markdown keeps the blank line before a table, tells heading levels apart, and shows a too-wide table as blocks', async () => {
    const md = [
      '# Top level',
      '',
      'Intro.',
      '',
      '## Second level',
      '',
      'Text before the table.',
      '',
      '| Name | Description | Owner | Status |',
      '|---|---|---|---|',
      '| alpha | a rather long description of the first thing in the table | someone@example.com | in progress |',
      '| beta | short | other@example.com | done |',
      '',
      'After the table.',
    ].join('\n');
    // Streamed in pieces: the blank line before the table arrives before the table's first row.
    const cut = md.indexOf('| Name');
    const row = md.indexOf('|---');
    rig.fake.setResponder(() => ({ steps: [{ text: md.slice(0, cut) }, { delayMs: 150 }, { text: md.slice(cut, row) }, { delayMs: 150 }, { text: md.slice(row) }] }));
    const t = rig.start({ width: 60, height: 50 });
    await t.waitFor('Type a message');
    t.type('show');
    const screen = await t.waitFor((s) => s.includes('After the table.') && idle(s));
    expect(screen).toMatch(/Text before the table\.\n\n/);
    expect(screen).toContain('Name: alpha');
    expect(screen).toContain('Owner: someone@example.com');
    expect(screen).toContain('Name: beta');
    expect(screen).not.toContain('│ Description');
    for (const l of screen.split('\n')) expect(stringWidth(l)).toBeLessThanOrEqual(60);
    const raw = t.capture(true);
    const styleOf = (title: string) => /((?:\x1b\[[0-9;]*m)+)[^\x1b]*$/.exec(raw.slice(0, raw.indexOf(title)))?.[1];
    expect(styleOf('Top level')).toBeDefined();
    expect(styleOf('Top level')).not.toBe(styleOf('Second level'));
  }, 60_000);
});
