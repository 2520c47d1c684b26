/**
 * The REPL end to end in a real terminal (tmux): `node bin/keen.js` against the Anthropic
 * loopback fake. Needs `npm run build` first (npm test does it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { RecordedRequest } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { afterToolResult, allText, isCompactionRequest, lastUserText } from './fake-requests.js';
import { TmuxKeen } from './tmux.js';

let fake: ScriptedServer;
let ws: Workspace;
const terminals: TmuxKeen[] = [];

beforeEach(async () => {
  fake = await startAnthropicFake();
  ws = tempWorkspace({ 'big.txt': Array.from({ length: 600 }, (_, i) => `line ${i} of the big file with some words in it`).join('\n') });
});

afterEach(async () => {
  for (const t of terminals.splice(0)) t.kill();
  await fake.close();
  ws.cleanup();
});

function keen(args: string[] = [], env: Record<string, string | undefined> = {}): TmuxKeen {
  // NO_COLOR is unset unless a test sets it (vitest's config sets it for the in-process tests).
  const t = TmuxKeen.start({ cwd: ws.cwd, args, env: { KEEN_HOME: ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, NO_COLOR: undefined, ...env } });
  terminals.push(t);
  return t;
}

const idle = (s: string) => s.includes('Type a message') && !/Thinking|Responding|Compacting|Running/.test(s.split('\n').slice(-8).join('\n'));
const count = (s: string, part: string) => s.split(part).length - 1;

describe('keen in a terminal', () => {
  it('streams an answer with a tool card, re-wraps on resize and exits with the resume hint', async () => {
    fake.setResponder((req) =>
      afterToolResult(req)
        ? { steps: [{ text: 'It printed **hello** and ' }, { delayMs: 50 }, { text: 'nothing else.' }] }
        : { steps: [{ text: '## Plan\n\nI will run `echo`.' }, { toolCall: { name: 'bash', args: { command: 'echo hello' } } }] },
    );
    const t = keen();
    await t.waitFor('Type a message');
    t.type('run echo for me');
    await t.waitFor('Allow bash?');
    await t.answer('1');
    const screen = await t.waitFor((s) => s.includes('It printed hello and nothing else.') && idle(s));
    expect(screen).toContain('● Plan');
    expect(screen).toContain('✓ bash echo hello\n  ⎿ hello');
    expect(t.capture(true)).toMatch(/\x1b\[[0-9;]*3[0-7]m/);

    t.resize(60, 30);
    // The transcript is printed again at the new width; no 100-column remnants stay behind.
    const narrow = await t.waitFor((s) => s.includes(`╭${'─'.repeat(58)}╮`) && !s.includes('─'.repeat(59)));
    expect(narrow).toContain('● It printed hello and nothing else.');

    t.type('/exit');
    const end = await t.waitFor('[keen exited 0]');
    expect(end).toMatch(/Run `keen --resume \d{8}-\d{6}-[a-z0-9]+` to continue\./);
    expect(end).not.toContain('Type a message');
  });

  it('session flags reach the REPL: --mode plan and --permission-mode show in the footer and shape the request', async () => {
    fake.setResponder(() => ({ steps: [{ text: 'A plan.' }] }));
    const t = keen(['--mode', 'plan', '--permission-mode', 'acceptEdits']);
    const screen = await t.waitFor((s) => idle(s) && s.includes('plan mode') && s.includes('acceptEdits'));
    expect(screen).toContain('plan mode');
    t.type('what would you change?');
    await t.waitFor('A plan.');
    const system = JSON.stringify(fake.requests[0].body.system);
    expect(system).toContain('Plan mode is on.');
  });

  it('/compact shows Compacting... then the summary; Esc on a slow one leaves history unchanged', async () => {
    let compactions = 0;
    fake.setResponder((req) => {
      if (!isCompactionRequest(req)) return { steps: [{ text: `answer to ${lastUserText(req)}` }] };
      compactions++;
      return compactions === 1
        ? { steps: [{ text: 'Partial summ' }, { hold: true }, { text: 'ary' }] }
        : { steps: [{ delayMs: 400 }, { text: '## Goal\nKeep the API notes: use v2.' }] };
    });
    const t = keen();
    await t.waitFor('Type a message');
    t.type('remember the API notes');
    await t.waitFor('answer to remember the API notes');

    t.type('/compact');
    await t.waitFor('Partial summ');
    expect(t.capture()).toMatch(/Compacting\.\.\. .*\(esc to cancel\)/);
    t.keys('Escape');
    await t.waitFor('Compaction cancelled; history unchanged');
    t.type('still there?');
    await t.waitFor('answer to still there?');
    const afterCancel = fake.requests.at(-1)!;
    expect(allText(afterCancel)).toContain('remember the API notes');
    expect(allText(afterCancel)).not.toContain('Partial summ');

    t.type('/compact keep the API notes');
    await t.waitFor('Compacting...');
    const done = await t.waitFor('✓ Context compacted.');
    expect(done).toContain('● Goal\n  Keep the API notes: use v2.\n\n✓ Context compacted.');
    t.type('next');
    await t.waitFor('answer to next');
    const next = fake.requests.at(-1)!;
    expect(allText(next)).toContain('Keep the API notes: use v2.');
    expect(allText(next)).not.toContain('remember the API notes');
  });

  it('compacts automatically inside a tool loop without repeating text, and Esc on a slow one lets the turn finish', async () => {
    mkdirSync(path.join(ws.cwd, '.keen'), { recursive: true });
    writeFileSync(
      path.join(ws.cwd, '.keen', 'config.json'),
      JSON.stringify({ models: { tiny: { provider: 'anthropic', contextWindow: 8000, maxOutputTokens: 1000 } }, model: 'tiny' }),
    );
    let compactions = 0;
    fake.setResponder((req: RecordedRequest) => {
      if (isCompactionRequest(req)) {
        compactions++;
        return { steps: [compactions === 1 ? { delayMs: 300 } : { hold: true }, { text: `PRIVATE SUMMARY ${compactions}` }] };
      }
      // After the tool ran, or after a compaction replaced the history: finish the turn.
      if (afterToolResult(req) || lastUserText(req).includes('PRIVATE SUMMARY')) return { steps: [{ text: 'Finished reading.' }] };
      return { steps: [{ text: `Reading for ${lastUserText(req)}.` }, { toolCall: { name: 'read_file', args: { path: 'big.txt' } } }] };
    });
    const t = keen();
    await t.waitFor('Type a message');
    t.type('first read');
    const first = await t.waitFor((s) => s.includes('Finished reading.') && idle(s));
    expect(count(first, 'Reading for first read.')).toBe(1);
    expect(count(first, 'Context compacted automatically')).toBe(1);
    expect(first).not.toContain('PRIVATE SUMMARY');
    expect(first).toMatch(/● Reading for first read\.\n\n✓ read_file big\.txt[\s\S]*✓ Context compacted automatically\n\n● Finished reading\./);

    t.type('second read');
    await t.waitFor((s) => count(s, 'Compacting...') === 1 && s.includes('Reading for second read.'));
    t.keys('Escape');
    const second = await t.waitFor((s) => count(s, 'Finished reading.') === 2 && idle(s));
    expect(second).toContain('Automatic compaction cancelled; continuing without it');
    expect(count(second, 'Context compacted automatically')).toBe(1);
    expect(second).not.toContain('Interrupted');
  });

  it('--resume and /resume restore the transcript (NO_COLOR honoured)', async () => {
    fake.setResponder((req) => ({ steps: [{ text: `answer to ${lastUserText(req)}` }] }));
    const first = keen([], { NO_COLOR: '1' });
    await first.waitFor('Type a message');
    first.type('the old question');
    await first.waitFor('answer to the old question');
    expect(first.capture(true)).not.toMatch(/\x1b\[[0-9;]*3[0-7]m/);
    first.type('/exit');
    const end = await first.waitFor('[keen exited 0]');
    const id = /keen --resume (\S+)`/.exec(end)![1];

    const second = keen(['--resume', id], { NO_COLOR: '1' });
    const resumed = await second.waitFor('Resumed session');
    expect(resumed).toContain('› the old question\n\n● answer to the old question\n\n· Resumed session');
    expect(resumed).toContain(`session ${id}`);

    second.type('/clear');
    await second.waitFor((s) => !s.includes('the old question') && s.includes('Type a message'));
    second.type('/resume');
    await second.waitFor('Resume a session');
    second.keys('Enter');
    const picked = await second.waitFor('Resumed session');
    expect(picked).toContain('› the old question\n\n● answer to the old question');
  });

  it("`keen --resume` without an id opens the picker of this directory's sessions; leaving a fresh, empty session prints no hint", async () => {
    fake.setResponder((req) => ({ steps: [{ text: `answer to ${lastUserText(req)}` }] }));
    const first = keen([], { NO_COLOR: '1' });
    await first.waitFor('Type a message');
    first.type('/exit');
    const empty = await first.waitFor('[keen exited 0]');
    expect(empty).not.toContain('to continue.'); // nothing was saved, so there is nothing to resume

    const second = keen([], { NO_COLOR: '1' });
    await second.waitFor('Type a message');
    second.type('a question to pick later');
    await second.waitFor('answer to a question to pick later');
    second.type('/exit');
    await second.waitFor('[keen exited 0]');

    const third = keen(['--resume'], { NO_COLOR: '1' });
    await third.waitFor('Resume a session');
    expect(third.capture()).toContain('a question to pick later');
    third.keys('Enter');
    const picked = await third.waitFor('Resumed session');
    expect(picked).toContain('› a question to pick later\n\n● answer to a question to pick later');
  });
});
