/**
 * The REPL's project-context commands through the real runtime and sessions, rendered with
 * ink-testing-library against the loopback Anthropic fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemText } from '../e2e/context-fixtures.js';
import { afterToolResult, lastUserText } from './fake-requests.js';
import { KEYS, startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SKILL = '---\nname: release\ndescription: Cut a release\n---\nRELEASE-STEPS\n';

describe('REPL: memory', () => {
  it('# saves a fact to project memory without a model call, #~ to user memory; /memory shows both with their paths', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'unused' }] }) });
    h.send('# tests run with npm test');
    await h.waitFor('Saved to project memory');
    h.send('#~ answer tersely');
    await h.waitFor('Saved to user memory');
    expect(h.fake.requests).toHaveLength(0);
    expect(fs.readFileSync(path.join(h.ws.cwd, '.keen/memory.md'), 'utf8')).toBe('- tests run with npm test\n');
    expect(fs.readFileSync(path.join(h.ws.home, 'memory.md'), 'utf8')).toBe('- answer tersely\n');
    h.send('/memory');
    const frame = await h.waitFor('Start a message with #');
    expect(frame).toContain(`User memory: ${path.join(h.ws.home, 'memory.md')}`);
    expect(frame).toContain('Project memory: <cwd>/.keen/memory.md');
    expect(frame).toContain('  - tests run with npm test');
    expect(frame).toContain('  - answer tersely');
    // The next turn's system prompt carries both.
    h.send('hello');
    await h.waitFor('unused');
    const system = systemText(h.fake.requests[0]);
    expect(system).toContain('- tests run with npm test');
    expect(system).toContain('- answer tersely');
  });
  it('/memory does not show a project memory file that leads outside the project', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'unused' }] }) });
    // The folder, not the file, is the link: the file itself opens without following one.
    const secret = fs.mkdtempSync(path.join(path.dirname(h.ws.cwd), 'outside-keen-'));
    fs.writeFileSync(path.join(secret, 'memory.md'), 'OUTSIDE-SECRET\n');
    fs.rmSync(path.join(h.ws.cwd, '.keen'), { recursive: true, force: true });
    fs.symlinkSync(secret, path.join(h.ws.cwd, '.keen'));
    try {
      h.send('/memory');
      const frame = await h.waitFor('Start a message with #');
      expect(frame).toContain('Project memory: <cwd>/.keen/memory.md');
      expect(frame).not.toContain('OUTSIDE-SECRET');
    } finally {
      fs.rmSync(secret, { recursive: true, force: true });
    }
  });
});

describe('REPL: skills and custom commands', () => {
  it('/skills lists them; /<skill> args sends the skill with the arguments while showing what was typed', async () => {
    h = await startHarness({ files: { '.keen/skills/release/SKILL.md': SKILL }, responder: () => ({ steps: [{ text: 'Releasing now.' }] }) });
    h.send('/skills');
    const list = await h.waitFor('Type /<skill>');
    expect(list).toContain('/release  Cut a release  (.keen/skills/release/SKILL.md)');
    h.send('/release v3');
    const frame = await h.waitFor('Releasing now.');
    expect(frame).toContain('› /release v3');
    expect(frame).not.toContain('RELEASE-STEPS');
    const sent = lastUserText(h.fake.requests[0]);
    expect(sent).toContain('RELEASE-STEPS');
    expect(sent).toContain('Arguments: v3');
  });

  it('a custom command expands its arguments, shows in /help with its description and completes with Tab', async () => {
    h = await startHarness({
      files: { '.keen/commands/review.md': '---\ndescription: Review one file\n---\nReview $1 now.' },
      responder: () => ({ steps: [{ text: 'Reviewed.' }] }),
    });
    h.send('/help');
    expect(await h.waitFor('Project commands and skills:')).toContain('/review [args]  Review one file');
    h.write('/revi');
    // The suggestion row under the prompt carries the description too (once in /help, once here).
    await h.waitFor((f) => f.split('Review one file').length === 3);
    h.write(KEYS.tab);
    await h.waitFor('› /review');
    h.write('src/a.ts');
    h.write(KEYS.enter);
    await h.waitFor('Reviewed.');
    expect(lastUserText(h.fake.requests[0])).toBe('Review src/a.ts now.');
  });

  it('a malformed SKILL.md is one warning notice; the other skills still load', async () => {
    h = await startHarness({
      files: { '.keen/skills/release/SKILL.md': SKILL, '.keen/skills/bad/SKILL.md': '---\ndescription: [x\n---\n' },
      responder: () => ({ steps: [{ text: 'unused' }] }),
    });
    const frame = await h.waitFor('skipped skill');
    expect(frame.split('skipped skill')).toHaveLength(2);
    expect(frame).toContain('<cwd>/.keen/skills/bad/SKILL.md');
    h.send('/skills');
    expect(await h.waitFor('Type /<skill>')).toContain('/release');
  });
});

describe('REPL: agent mode', () => {
  it('/mode plan shows in the footer, the prompt says so, and a write is refused even with --yolo', async () => {
    h = await startHarness({
      flags: { yolo: true },
      responder: (req) => (afterToolResult(req) ? { steps: [{ text: 'Planned.' }] } : { steps: [{ toolCall: { name: 'write_file', args: { path: 'x.txt', content: 'x' } } }] }),
    });
    h.send('/mode plan');
    const footer = await h.waitFor('plan mode · anthropic/');
    expect(footer).toContain('Plan mode: the agent reads and plans');
    h.send('write x.txt');
    const frame = await h.waitFor('Planned.');
    expect(frame).toContain('Plan mode is on: write_file');
    expect(fs.existsSync(path.join(h.ws.cwd, 'x.txt'))).toBe(false);
    expect(systemText(h.fake.requests[0])).toContain('Plan mode is on');
    h.send('/mode build');
    await h.waitFor('Build mode');
    expect(h.frame()).not.toContain('plan mode ·');
  });
});

describe('REPL: /init', () => {
  it('asks the model to draft AGENTS.md; the write asks permission', async () => {
    h = await startHarness({
      responder: (req) =>
        afterToolResult(req) ? { steps: [{ text: 'Drafted.' }] } : { steps: [{ toolCall: { name: 'write_file', args: { path: 'AGENTS.md', content: '# Agents\n' } } }] },
    });
    h.send('/init');
    await h.waitFor('Allow write_file?');
    h.write('1');
    await h.waitFor('Drafted.');
    expect(lastUserText(h.fake.requests[0])).toContain('Draft an AGENTS.md');
    expect(fs.readFileSync(path.join(h.ws.cwd, 'AGENTS.md'), 'utf8')).toBe('# Agents\n');
    h.send('/init');
    await h.waitFor('already exists');
    expect(h.fake.requests).toHaveLength(2);
  });
});

describe('REPL: subagents', () => {
  it('shows the child as one nested line on the task card while it runs', async () => {
    h = await startHarness({
      files: { '.keen/agents/scout.md': '---\nname: scout\ndescription: explores\ntools: [read_file]\n---\nYou are SCOUT.\n', 'a.txt': 'A' },
      responder: (req) => {
        if (systemText(req).startsWith('You are SCOUT')) {
          return afterToolResult(req) ? { steps: [{ delayMs: 600 }, { text: 'child answer' }] } : { steps: [{ toolCall: { name: 'read_file', args: { path: 'a.txt' } } }] };
        }
        return afterToolResult(req) ? { steps: [{ text: 'Parent done.' }] } : { steps: [{ toolCall: { name: 'task', args: { agent: 'scout', prompt: 'look' } } }] };
      },
    });
    h.send('delegate');
    const running = await h.waitFor('scout · 1 request');
    expect(running).toMatch(/○ task .*running…\n\s+⎿ scout · 1 request/);
    const frame = await h.waitFor('Parent done.');
    expect(frame).toContain('✓ task');
    expect(frame).toContain('child answer');
    expect(frame).not.toContain('scout · 1 request');
  });
});

describe('REPL: cancelling a subagent', () => {
  it('Ctrl+C cancels the running child with the parent; its transcript ends cancelled', async () => {
    h = await startHarness({
      files: { '.keen/agents/slow.md': '---\nname: slow\ndescription: takes long\n---\nYou are SLOW.\n' },
      responder: (req) => {
        if (systemText(req).startsWith('You are SLOW')) return { steps: [{ text: 'thinking' }, { delayMs: 20_000 }, { text: 'never' }] };
        return { steps: [{ toolCall: { id: 'task-slow', name: 'task', args: { agent: 'slow', prompt: 'wait' } } }] };
      },
    });
    h.send('delegate');
    await h.waitFor('slow · 0 requests');
    h.write(KEYS.ctrlC);
    const frame = await h.waitFor('Interrupted');
    expect(frame).not.toContain('never');
    const dir = path.join(h.runtime.session!.store.dir, 'subagents');
    const end = await waitForEnd(path.join(dir, 'task-slow.jsonl'));
    expect(end).toMatchObject({ kind: 'end', error: 'cancelled' });
    expect(h.fake.requests.filter((r) => systemText(r).startsWith('You are SLOW'))).toHaveLength(1);
  });
});

async function waitForEnd(file: string): Promise<unknown> {
  for (let i = 0; i < 500; i++) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
    const last = lines.length ? JSON.parse(lines[lines.length - 1]) : undefined;
    if (last?.kind === 'end') return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no end record in ${file}`);
}
