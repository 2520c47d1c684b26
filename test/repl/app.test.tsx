import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { afterToolResult, allText, isCompactionRequest, lastUserText } from './fake-requests.js';
import { idleTail, KEYS, startHarness, type ReplHarness } from './harness.js';
import { DENIED_STOP_NOTICE } from '../../src/repl/turn-runner.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FOOTER = (pct: number) => `anthropic/claude-sonnet-5-5 · ${pct}% context · session <id>`;
const BANNER = ['keen 0.0.0-test · <cwd>', '/help for commands · Ctrl+C twice to exit'];

describe('a turn on screen', () => {
  it('streams the answer as markdown and shows a tool card after the permission prompt', async () => {
    h = await startHarness({
      files: { 'notes.md': 'hello\n' },
      responder: (req) =>
        afterToolResult(req)
          ? { steps: [{ text: 'The command printed **hi**.' }] }
          : { steps: [{ text: 'Let me check.' }, { toolCall: { name: 'bash', args: { command: 'echo hi' } } }] },
    });
    h.send('say hi');
    await h.waitFor('Allow bash?');
    expect(h.frame()).toContain('○ bash echo hi running…');
    h.write('1');
    const frame = await h.waitFor((f) => f.includes('The command printed hi.') && !/Thinking|Responding/.test(f));
    expect(frame).toBe(
      [...BANNER, '', '› say hi', '', '● Let me check.', '', '✓ bash echo hi', '  ⎿ hi', '    [exit code 0]', '', '● The command printed hi.', idleTail(FOOTER(1))].join('\n'),
    );
  });

  it('a declined answer shows what the model said, then a notice with the explanation', async () => {
    h = await startHarness({
      responder: () => ({
        steps: [{ text: 'I will not write that.' }],
        stopReason: 'refusal',
        refusal: { category: 'cyber', explanation: 'The request could enable malware development.' },
      }),
    });
    h.send('write a keylogger');
    const frame = await h.waitFor((f) => f.includes('The model declined to answer') && !f.includes('Thinking'));
    expect(frame).toContain('● I will not write that.');
    expect(frame).toContain('The model declined to answer: The request could enable malware development.');
  });

  it('answers an unknown command with a one-line hint and no model call', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'unused' }] }) });
    h.send('/frobnicate');
    const frame = await h.waitFor('Unknown command');
    expect(frame).toBe([...BANNER, '', '› /frobnicate', '', '! Unknown command /frobnicate. Type /help for the list.', idleTail(FOOTER(1))].join('\n'));
    expect(h.fake.requests).toHaveLength(0);
  });

  it('queues input typed while busy and runs it in order afterwards', async () => {
    h = await startHarness({
      responder: (req) => {
        const text = lastUserText(req);
        return text === 'first' ? { steps: [{ text: 'one ' }, { delayMs: 400 }, { text: 'done' }] } : { steps: [{ text: `echo ${text}` }] };
      },
    });
    h.send('first');
    await h.waitFor('one');
    h.send('second');
    h.send('third');
    const queued = await h.waitFor('queued 2/5');
    expect(queued).toContain('↳ queued 1/5: second\n↳ queued 2/5: third');
    await h.waitFor('echo third');
    expect(h.fake.requests.map(lastUserText)).toEqual(['first', 'second', 'third']);
    expect(h.frame()).not.toContain('queued');
  });

  it('Esc denies a permission request (the turn stops) and Ctrl+O expands the tool output', async () => {
    h = await startHarness({
      responder: (req) =>
        afterToolResult(req)
          ? { steps: [{ text: 'Understood, I will not write it.' }] }
          : { steps: [{ toolCall: { name: 'write_file', args: { path: 'out.txt', content: 'one\ntwo\n' } } }] },
    });
    h.send('write out.txt');
    const prompt = await h.waitFor('Allow write_file?');
    expect(prompt).toContain('│   +one');
    expect(prompt).toContain('│   +two');
    h.write(KEYS.esc);
    const frame = await h.waitFor(DENIED_STOP_NOTICE);
    expect(frame).not.toContain('Understood, I will not write it.');
    expect(frame).toContain('│ ✗ write_file out.txt (2 lines)');
    expect(frame).toContain('│ Permission denied: the user declined this write_file call.');
    h.write(KEYS.ctrlO);
    await h.waitFor('· Tool output expanded (Ctrl+O to collapse)');
  });

  it('Ctrl+C interrupts the stream; twice when idle exits', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'partial ' }, { hold: true }, { text: 'never' }] }) });
    h.send('go');
    await h.waitFor('partial');
    h.write(KEYS.ctrlC);
    await h.waitFor((f) => f.includes('· Interrupted') && !f.includes('ctrl+c to interrupt'));
    h.write(KEYS.ctrlC);
    await h.waitFor('Press Ctrl+C again to exit');
    h.write(KEYS.ctrlC);
    expect(await h.exited).toBe(0);
  });
});

describe('input', () => {
  it('continues a line with \\ then Enter, completes commands with Tab and recalls history with ↑', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'ok' }] }) });
    h.write('line one\\');
    h.write(KEYS.enter);
    h.write('line two');
    await h.waitFor('│   line two');
    expect(h.frame()).toContain('│ › line one');
    h.write(KEYS.enter);
    await h.waitFor('● ok');
    expect(lastUserText(h.fake.requests[0])).toBe('line one\nline two');
    h.write('/comp');
    h.write(KEYS.tab);
    expect(h.runtime.store.getState().editor.text).toBe('/compact ');
    h.write(KEYS.ctrlC);
    h.write(KEYS.up);
    expect(h.runtime.store.getState().editor.text).toBe('line one\nline two');
  });

  it('keeps a bracketed paste as text (newlines included) and adds a line with Alt+Enter', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'ok' }] }) });
    h.write('\x1b[200~first pasted line\rsecond pasted line\x1b[201~');
    h.write('\x1b\r');
    h.write('typed');
    await h.waitFor('│   typed');
    expect(h.fake.requests).toHaveLength(0);
    h.write(KEYS.enter);
    await h.waitFor('● ok');
    expect(lastUserText(h.fake.requests[0])).toBe('first pasted line\nsecond pasted line\ntyped');
  });

  it('keys that arrive in one read (typed while starting, a slow link) act one by one: Backspace deletes, each Enter sends', async () => {
    h = await startHarness({ responder: (req) => ({ steps: [{ text: `got ${lastUserText(req)}` }] }) });
    h.write('fix teh\x7f\x7fhe bug\rsecondx\x08\r');
    await h.waitFor('got second');
    expect(h.fake.requests.map(lastUserText)).toEqual(['fix the bug', 'second']);
    // Ctrl+U in the same read clears what came before it.
    h.write('junk\x15kept\r');
    await h.waitFor('got kept');
    expect(lastUserText(h.fake.requests[2])).toBe('kept');
  });

  it('attaches an @file mention to the message', async () => {
    h = await startHarness({ files: { 'notes.md': 'API notes: use v2\n' }, responder: () => ({ steps: [{ text: 'read it' }] }) });
    h.send('summarise @notes.md please');
    const frame = await h.waitFor('● read it');
    expect(frame).toContain('› summarise @notes.md please\n  attached: notes.md');
    expect(lastUserText(h.fake.requests[0])).toBe('summarise @notes.md please\n\n<attached_file path="notes.md">\nAPI notes: use v2\n</attached_file>');
  });

  it('persists input history per project', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'ok' }] }) });
    h.send('remember me');
    await h.waitFor('● ok');
    const ws = h.ws;
    await h.close({ dispose: false });
    h = await startHarness({ workspace: ws, responder: () => ({ steps: [{ text: 'ok' }] }) });
    h.write(KEYS.up);
    expect(h.runtime.store.getState().editor.text).toBe('remember me');
  });
});

describe('manual compaction', () => {
  const history = (req: Parameters<typeof lastUserText>[0]) =>
    isCompactionRequest(req) ? { delayMs: 0, steps: [{ text: '## Goal\nKeep the API notes.' }] } : { steps: [{ text: `answer to ${lastUserText(req)}` }] };

  it('/compact shows Compacting... then the summary, and the next turn starts from it', async () => {
    h = await startHarness({ responder: (req) => (isCompactionRequest(req) ? { steps: [{ delayMs: 300 }, { text: '## Goal\nKeep the API notes.' }] } : history(req)) });
    h.send('first question');
    await h.waitFor('answer to first question');
    h.send('/compact keep the API notes');
    await h.waitFor(/Compacting\.\.\. .*\(esc to cancel\)/);
    const done = await h.waitFor('✓ Context compacted.');
    expect(done).toContain('● Goal\n  Keep the API notes.\n\n✓ Context compacted.');
    expect(lastUserText(h.fake.requests[1])).toContain('keep the API notes');
    h.send('next');
    await h.waitFor('answer to next');
    const next = h.fake.requests[2].body.messages;
    expect(next.map((m: { role: string }) => m.role)).toEqual(['user', 'user']);
    expect(allText(h.fake.requests[2])).toContain('Keep the API notes.');
    expect(allText(h.fake.requests[2])).not.toContain('first question');
  });

  it('Esc cancels a slow compaction and leaves history unchanged; queued input then runs', async () => {
    h = await startHarness({ responder: (req) => (isCompactionRequest(req) ? { steps: [{ text: 'Summ' }, { hold: true }, { text: 'ary' }] } : history(req)) });
    h.send('first question');
    await h.waitFor('answer to first question');
    h.send('/compact');
    await h.waitFor('Summ');
    h.send('after');
    await h.waitFor('queued 1/5: after');
    h.write(KEYS.esc);
    await h.waitFor('Compaction cancelled; history unchanged');
    await h.waitFor('answer to after');
    const sent = allText(h.fake.requests[2]);
    expect(sent).toContain('first question');
    expect(sent).not.toContain('Summ');
  });

  it('shows a tool call refused during compaction as an error card', async () => {
    h = await startHarness({
      responder: (req) => {
        if (!isCompactionRequest(req) && !afterToolResult(req)) return history(req);
        return afterToolResult(req) ? { steps: [{ text: 'Summary from history.' }] } : { steps: [{ toolCall: { name: 'read_file', args: { path: 'a.ts' } } }] };
      },
    });
    h.send('q');
    await h.waitFor('answer to q');
    h.send('/compact');
    const frame = await h.waitFor('✓ Context compacted.');
    expect(frame).toContain('│ ✗ read_file a.ts');
    expect(frame).toContain('│ Tool calls are disabled during compaction; use the history.');
    expect(frame).toContain('● Summary from history.');
  });
});

describe('automatic compaction', () => {
  const config = { models: { tiny: { provider: 'anthropic', contextWindow: 8000, maxOutputTokens: 1000 } }, model: 'tiny' };
  const big = Array.from({ length: 600 }, (_, i) => `line ${i} of the big file with some words in it`).join('\n');

  function loop(summaryDelayMs: number) {
    return (req: Parameters<typeof lastUserText>[0]) => {
      if (isCompactionRequest(req)) return { steps: [{ delayMs: summaryDelayMs }, { text: 'PRIVATE SUMMARY: big.txt was read.' }] };
      if (afterToolResult(req) || lastUserText(req).includes('PRIVATE SUMMARY')) return { steps: [{ text: 'Finished reading.' }] };
      return { steps: [{ text: 'Reading the file now.' }, { toolCall: { name: 'read_file', args: { path: 'big.txt' } } }] };
    };
  }

  it('shows `Context compacted automatically` once, never the summary, and no text twice', async () => {
    h = await startHarness({ config, files: { 'big.txt': big }, responder: loop(300) });
    h.send('read big.txt');
    await h.waitFor('Compacting...');
    const frame = await h.waitFor((f) => f.includes('Finished reading.') && !/Thinking|Responding/.test(f));
    expect(frame.split('Reading the file now.')).toHaveLength(2);
    expect(frame.split('Context compacted automatically')).toHaveLength(2);
    expect(frame).not.toContain('PRIVATE SUMMARY');
    expect(frame).toContain('● Reading the file now.\n\n✓ read_file big.txt');
    expect(frame).toMatch(/✓ Context compacted automatically\n\n● Finished reading\./);
    expect(h.fake.requests.filter(isCompactionRequest)).toHaveLength(1);
  });

  it('Esc during a slow automatic compaction cancels only the compaction; the turn finishes', async () => {
    h = await startHarness({ config, files: { 'big.txt': big }, responder: loop(5000) });
    h.send('read big.txt');
    await h.waitFor('Compacting...');
    h.write(KEYS.esc);
    const frame = await h.waitFor((f) => f.includes('Finished reading.') && !/Thinking|Responding/.test(f));
    expect(frame).toContain('· Automatic compaction cancelled; continuing without it');
    expect(frame).not.toContain('Context compacted automatically');
    expect(frame).not.toContain('Interrupted');
  });
});

describe('sessions', () => {
  it('/resume picks a stored session and replays its transcript; --resume does too', async () => {
    h = await startHarness({ responder: (req) => ({ steps: [{ text: `answer to ${lastUserText(req)}` }] }) });
    h.send('the old question');
    await h.waitFor('answer to the old question');
    const oldId = h.runtime.session!.sessionId;
    h.send('/clear');
    // ink-testing-library keeps every printed frame; the terminal itself is cleared (tmux test).
    const sinceReset = (f: string) => f.slice(f.lastIndexOf(BANNER[0]));
    await h.waitFor((f) => !sinceReset(f).includes('old question') && h!.runtime.session!.sessionId !== oldId);
    expect(h.runtime.session!.sessionId).not.toBe(oldId);
    h.send('/resume');
    await h.waitFor('Resume a session');
    expect(h.frame()).toContain(`❯ just now   the old question  1 turn · ${oldId}`);
    h.write(KEYS.enter);
    const frame = sinceReset(await h.waitFor('Resumed session'));
    expect(h.runtime.session!.sessionId).toBe(oldId);
    expect(frame).toBe([BANNER[0], BANNER[1], '', '› the old question', '', '● answer to the old question', '', '· Resumed session <id>', idleTail(FOOTER(1))].join('\n'));
    const ws = h.ws;
    await h.close({ dispose: false });
    h = await startHarness({ workspace: ws, flags: { session: oldId }, responder: () => ({ steps: [{ text: 'x' }] }) });
    expect(h.frame()).toContain('› the old question\n\n● answer to the old question\n\n· Resumed session <id>');
  });

  it('--system-prompt and --append-system-prompt shape every request, also after /clear', async () => {
    h = await startHarness({ flags: { systemPrompt: 'Custom base prompt.', appendSystemPrompt: 'Always end with OK.' }, responder: () => ({ steps: [{ text: 'ok' }] }) });
    h.send('hi');
    await h.waitFor('● ok');
    const firstId = h.runtime.session!.sessionId;
    h.send('/clear');
    await h.waitFor(() => h!.runtime.session!.sessionId !== firstId);
    h.send('again');
    await h.waitFor(() => h!.fake.requests.length === 2 && h!.runtime.session!.store.persisted);
    for (const req of h.fake.requests) {
      const system = JSON.stringify(req.body.system);
      expect(system).toContain('Custom base prompt.');
      expect(system).not.toContain('You are Keen');
      expect(system).toMatch(/Always end with OK\.[\s\S]*$/);
    }
  });

  it('/model switches the model (a session not yet on disk starts on the new one)', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'ok' }] }) });
    h.send('/model claude-opus-5');
    await h.waitFor('✓ Model: anthropic/claude-opus-5');
    expect(h.frame()).toContain('anthropic/claude-opus-5 · ');
    h.send('hi');
    await h.waitFor('● ok');
    expect(h.fake.requests[0].body.model).toBe('claude-opus-5');
    // Nothing was on disk before the switch, so the session starts on the new model. The text is
    // on screen as it streams, before the finished turn is written: wait for the record.
    await h.waitFor(() => readSessionRecords(h!.ws.home, h!.runtime.session!.sessionId).length >= 3);
    const records = readSessionRecords(h.ws.home, h.runtime.session!.sessionId);
    expect(records.map((r) => r.kind)).toEqual(['session_started', 'user_message', 'assistant_turn']);
    expect(records[0]).toMatchObject({ provider: 'anthropic', model: 'claude-opus-5' });
  });
});

/** The records of session `id` under KEEN_HOME `home`. */
function readSessionRecords(home: string, id: string): { kind: string }[] {
  const root = path.join(home, 'sessions');
  const project = readdirSync(root).find((d) => readdirSync(path.join(root, d)).includes(id));
  if (!project) throw new Error(`no session ${id} under ${root}`);
  return readFileSync(path.join(root, project, id, 'transcript_events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}
