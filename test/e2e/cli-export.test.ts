/**
 * `keen export` after a real headless session with an edit and an automatic compaction: the page
 * is written, holds the marker with the summary, the edit's diff and one plot point per model
 * request, nothing is sent to the model, and headless Chromium loads it without console output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { ARTIFACTS_DIR, consoleLines, itChromium, runChromium } from '../kit/chromium.js';
import { summarizePng } from '../export/png-check.js';
import { useCliRig } from './cli-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

const TINY_MODEL = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
const log = (n: number) => Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');
const HOSTILE = `<script>document.documentElement.setAttribute('data-pwned','1')</script>`;

let ws: Workspace;
let requests = 0;

beforeAll(async () => {
  const files: Record<string, string> = { '.keen/config.json': JSON.stringify(TINY_MODEL), 'a.ts': 'const a = 1;\n' };
  for (let n = 1; n <= 4; n++) files[`log-${n}.txt`] = `${HOSTILE}\n${log(n)}`;
  ws = workspace(files);
  let turns = 0;
  rig.fake.setResponder((req) => {
    if (isCompactionRequest(req)) return { steps: [{ text: `## Goal\nRead every log. ${HOSTILE}` }] };
    turns++;
    requests++;
    if (turns === 1)
      return {
        steps: [{ text: 'Editing first. ' }, { toolCall: { id: 'e1', name: 'edit_file', args: { path: 'a.ts', old_string: 'const a = 1;', new_string: 'const a = 2;' } } }],
      };
    if (turns > 5) return { steps: [{ text: `Finished. ${HOSTILE}` }] };
    return { steps: [{ text: `Reading log-${turns - 1}. ` }, { toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns - 1}.txt` } } }] };
  });
  const run = await rig.keen(ws, ['run', '--yolo', `Edit, then read every log. ${HOSTILE}`]);
  rig.fake.setResponder(undefined);
  expect(run.code, run.stderr).toBe(0);
  expect(fs.readFileSync(path.join(ws.cwd, 'a.ts'), 'utf8')).toBe('const a = 2;\n');
});

describe('keen export', () => {
  it('writes the page: compaction marker with its summary, the diff, one point per request, threshold; no model call', async () => {
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['export', '--continue', '-o', 'page.html']);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(ws.cwd, 'page.html');
    expect(fs.realpathSync(r.stdout.trim())).toBe(fs.realpathSync(file));
    // The page holds the whole transcript: private, as the transcript is.
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).toMatch(
      /<details class="marker compaction" data-seq="\d+" data-mode="auto"><summary>Automatic compaction[^<]*<\/summary><pre class="summary-text">## Goal\nRead every log\. &lt;script&gt;/,
    );
    expect(html).toContain('<span class="d-del">-const a = 1;</span><span class="d-add">+const a = 2;</span>');
    expect(html.match(/<circle class="point"/g)).toHaveLength(requests);
    expect(html).toContain(`<g class="threshold" data-tokens="${Math.floor(0.9 * (12_000 - 4096))}">`);
    expect(html.match(/<g class="compaction-line"/g)).toHaveLength(1);
    expect(html).not.toContain(HOSTILE);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(rig.since(from)).toHaveLength(0);

    // `-o -` is stdout; without -o the page is keen-session-<id>.html here.
    const out = await rig.keen(ws, ['export', '--continue', '-o', '-'], { env: { ANTHROPIC_API_KEY: undefined } });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
    const named = await rig.keen(ws, ['export', '--continue']);
    expect(path.basename(named.stdout.trim())).toMatch(/^keen-session-[\w-]+\.html$/);
    expect(fs.existsSync(path.join(ws.cwd, path.basename(named.stdout.trim())))).toBe(true);
  });

  it('needs a session, and names a file it cannot write', async () => {
    const none = await rig.keen(ws, ['export']);
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe('keen: keen export needs --session <id> or --continue (list sessions with `keen sessions`)');
    const bad = await rig.keen(ws, ['export', '--continue', '-o', 'no/such/dir/page.html']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/^keen: could not write no\/such\/dir\/page\.html: /);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--session ID exports that session, -c the latest; an unknown or malformed id is one line, exit 1, no page', async () => {
    const two = workspace();
    const ids: string[] = [];
    for (const prompt of ['first prompt alpha', 'second prompt beta']) {
      rig.fake.enqueue({ steps: [{ text: `answer to ${prompt}` }] });
      const run = await rig.keen(two, ['run', '--format', 'json', prompt]);
      expect(run.code, run.stderr).toBe(0);
      ids.push(JSON.parse(run.stdout).session_id);
    }
    const [first, second] = ids;
    expect(first).not.toBe(second);
    const from = rig.fake.requests.length;
    const page = async (args: string[]) => {
      const r = await rig.keen(two, ['export', ...args, '-o', '-'], { env: { ANTHROPIC_API_KEY: undefined } });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };

    // The older session by its id (and by -r, its alias): not the latest one.
    for (const flag of ['--session', '-r']) {
      const older = await page([flag, first]);
      expect(older).toContain(first);
      expect(older).toContain('first prompt alpha');
      expect(older).not.toContain('second prompt beta');
    }
    // -c: the latest, as --continue.
    const latest = await page(['-c']);
    expect(latest).toContain(second);
    expect(latest).toContain('second prompt beta');
    expect(latest).not.toContain('first prompt alpha');
    const written = await rig.keen(two, ['export', '--session', first]);
    expect(written.code, written.stderr).toBe(0);
    expect(path.basename(written.stdout.trim())).toBe(`keen-session-${first}.html`);
    expect(rig.since(from)).toHaveLength(0);

    const pages = () => fs.readdirSync(two.cwd).filter((f) => f.endsWith('.html'));
    const before = pages();
    const unknown = await rig.keen(two, ['export', '--session', '20240101-000000-abcdef']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^keen: no session 20240101-000000-abcdef in \S+; run `keen sessions` to list sessions\n$/);
    const malformed = await rig.keen(two, ['export', '--session', '../../etc']);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toBe('keen: "../../etc" is not a session id (they look like 20250301-142233-k3f9qz); run `keen sessions` to list sessions\n');
    const empty = await rig.keen(workspace(), ['export', '-c']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toBe('keen: no session to continue in this directory; start one with `keen run "…"` or `keen`\n');
    expect(pages()).toEqual(before);
  });

  itChromium(
    'the exported page loads in headless Chromium with no console output; plot and marker in the DOM',
    async () => {
      const file = path.join(ws.cwd, 'browser.html');
      const r = await rig.keen(ws, ['export', '--continue', '-o', file]);
      expect(r.code, r.stderr).toBe(0);
      const dom = await runChromium(file, ['--dump-dom']);
      expect(dom.code, dom.stderr).toBe(0);
      expect(consoleLines(dom.stderr)).toEqual([]);
      expect(dom.stdout).toMatch(/<html lang="en" data-script="ran">/);
      expect(dom.stdout.match(/<circle class="point"/g)).toHaveLength(requests);
      expect(dom.stdout).toMatch(/<details class="marker compaction"/);
      fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
      const shot = path.join(ARTIFACTS_DIR, 'export-session.png');
      fs.rmSync(shot, { force: true });
      const screenshot = await runChromium(file, [`--screenshot=${shot}`]);
      expect(screenshot.code, screenshot.stderr).toBe(0);
      expect(consoleLines(screenshot.stderr)).toEqual([]);
      // The artifact docs/export.md points to: the window's size, and a picture, not a blank capture.
      expect(fs.existsSync(shot)).toBe(true);
      const png = summarizePng(shot);
      expect([png.width, png.height]).toEqual([1200, 2000]);
      expect(png.colours).toBeGreaterThan(63);
      expect(png.inked).toBeGreaterThan(0.05);
    },
    120_000,
  );
});
