import { errorText, KeenError } from '../errors.js';
import { describeRetryWait, onRetryWait } from '../llm/core/retry-fetch.js';
import { addUsage, emptyUsage } from '../llm/core/usage.js';
import type { RunFlags } from './commands.js';
import { headlessPrompt } from './headless-prompt.js';
import { openCliSession } from './open-cli-session.js';
import { readStdin } from './stdin.js';

/**
 * `keen run`: one turn, headless. Text format streams the assistant's visible text to stdout as
 * it arrives (so output is pre-compaction text + post-compaction text, no separator and nothing
 * private); JSON prints one object at the end. Failures: one line on stderr, non-zero exit, and
 * whatever text was produced is still written.
 */
export async function runHeadless(message: string | undefined, flags: RunFlags): Promise<number> {
  const input = message ?? (await readStdin());
  if (!input?.trim()) throw new KeenError('no message: pass one as an argument or on stdin (keen run "fix the failing test")');
  const session = await openCliSession(flags);
  const prompt = await headlessPrompt(session, input);
  const controller = new AbortController();
  // Ctrl+C, kill and a closed terminal (SIGHUP) all end the turn the same way: tools are
  // cancelled (their process groups killed), what was produced is saved, Keen exits. A second
  // signal exits at once; the exit hooks still kill tool process groups and release the lock.
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const sig of signals) process.on(sig, onSigint);
  // After SIGHUP the terminal is gone: a write to it must not turn into a crash.
  const stopWaitNotices = onRetryWait((w) => process.stderr.write(`keen: ${describeRetryWait(w)}\n`));
  const ignoreClosed = () => undefined;
  process.stdout.on('error', ignoreClosed);
  process.stderr.on('error', ignoreClosed);

  let completed = '';
  let current = '';
  let usage = emptyUsage();
  let compactions = 0;
  let stopReason: string | undefined;
  let failure: { kind: string; message: string } | undefined;
  const json = flags.format === 'json';
  const emit = (text: string) => {
    current += text;
    if (!json) process.stdout.write(text);
  };
  let lastWasText = false;
  try {
    for await (const ev of session.controller.chat(prompt, controller.signal)) {
      switch (ev.type) {
        case 'text_delta':
          emit(ev.text);
          lastWasText = true;
          break;
        case 'message':
          // Separate the text of consecutive model requests so they do not run together.
          if (ev.message.role === 'assistant' && lastWasText && !current.endsWith('\n')) emit('\n');
          lastWasText = false;
          break;
        case 'usage':
          usage = addUsage(usage, ev.usage);
          break;
        case 'auto_compaction_applied':
        case 'auto_compaction_failed':
        case 'auto_compaction_cancelled':
          usage = addUsage(usage, ev.usage); // the summariser's spend (never the context size)
          break;
        case 'checkpoint':
          completed += current;
          current = '';
          compactions++;
          break;
        case 'done':
          stopReason = ev.stopReason;
          break;
        case 'error':
          failure = ev.error;
          break;
        default:
          break;
      }
    }
  } catch (err) {
    // The store could not write (a full disk, say): the answer so far is still printed below.
    failure = { kind: 'other', message: errorText(err) };
  } finally {
    for (const sig of signals) process.off(sig, onSigint);
    stopWaitNotices();
    await session.close();
  }
  const result = (completed + current).replace(/\n+$/, '');
  if (json) {
    const out: Record<string, unknown> = { session_id: session.sessionId, result, usage, stop_reason: stopReason ?? null, compactions, provider: session.provider, model: session.model, mode: session.mode.get(), is_error: !!failure };
    if (failure) out.error = failure;
    process.stdout.write(`${session.store.redactText(JSON.stringify(out))}\n`);
  } else if (result && !(completed + current).endsWith('\n')) {
    process.stdout.write('\n');
  }
  if (failure) {
    process.stderr.write(`keen: ${session.store.redactText(failure.message)}\n`);
  } else if (stopReason === 'max_turns') {
    process.stderr.write('keen: stopped after the maximum number of tool turns (config maxTurns)\n');
  }
  process.stderr.write(`Run \`keen --resume ${session.sessionId}\` to continue.\n`);
  if (failure) return failure.kind === 'cancelled' ? 130 : 1;
  return stopReason === 'max_turns' ? 2 : 0;
}
