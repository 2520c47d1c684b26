/**
 * The exported page in a real browser (headless Chromium): it loads with no console output (no
 * error, no CSP refusal), its own script runs, the transcript's hostile `<script>` and `onerror`
 * do not, and the plot and the compaction marker are in the DOM. The screenshot is kept in
 * test-artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { renderSessionPage } from '../../src/export/session-page.js';
import { ARTIFACTS_DIR, consoleLines, itChromium, runChromium } from '../kit/chromium.js';
import { summarizePng } from './png-check.js';
import { sampleRecords } from './records-fixture.js';
import { tempDir } from '../kit/temp-dir.js';

itChromium(
  'Chromium loads the page without console errors; only its own script runs; plot and marker are there',
  async () => {
    const dir = tempDir('keen-export-page-');
    const file = path.join(dir, 'page.html');
    fs.writeFileSync(file, renderSessionPage({ sessionId: 's1', records: sampleRecords(), limits: { window: 12_000, threshold: 7_113 }, exportedAt: new Date() }));

    const dom = await runChromium(file, ['--dump-dom']);
    expect(dom.code, dom.stderr).toBe(0);
    expect(consoleLines(dom.stderr)).toEqual([]);
    expect(dom.stdout).toMatch(/<html lang="en" data-script="ran">/);
    expect(dom.stdout).not.toMatch(/<html[^>]*data-pwned/);
    expect(dom.stdout).not.toMatch(/<img/);
    expect(dom.stdout.match(/<circle class="point"/g)).toHaveLength(3);
    expect(dom.stdout).toContain('<g class="threshold" data-tokens="7113">');
    expect(dom.stdout).toContain('<g class="compaction-line" data-seq="6" data-after="2">');
    expect(dom.stdout).toMatch(/<details class="marker compaction" data-seq="6" data-mode="auto">/);
    // The script's button is shown (it starts hidden).
    expect(dom.stdout).toMatch(/<button id="toggle-all" type="button">Unfold all<\/button>/);

    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const shot = path.join(ARTIFACTS_DIR, 'export-sample.png');
    fs.rmSync(shot, { force: true });
    const screenshot = await runChromium(file, [`--screenshot=${shot}`]);
    expect(screenshot.code, screenshot.stderr).toBe(0);
    expect(consoleLines(screenshot.stderr)).toEqual([]);
    const png = summarizePng(shot);
    expect([png.width, png.height]).toEqual([1200, 2000]);
    expect(png.colours).toBeGreaterThan(63);
    expect(png.inked).toBeGreaterThan(0.05);
  },
  120_000,
);
