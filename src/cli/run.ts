import type { LiveSession } from '../agent/open-session.js';
import { errorText, KeenError } from '../errors.js';
import { describeRetryWait } from '../net/retry-fetch.js';
import { addUsage, emptyUsage, type Usage } from '../core/usage.js';
import type { RunFlags } from '../agent/flags.js';
import type { GitStatusCache } from '../project/git-status.js';
import { headlessPrompt } from './headless-prompt.js';
import { exitCodeOf, startupResult, turnResult, unfinishedMessage, type RunResult } from './headless/result.js';
import { initEvent, toStreamEvent } from './headless/stream-events.js';
import { readInputLines } from './headless/stream-input.js';
import { runHeadlessTurn, type TurnObserver, type TurnOutcome } from './headless/turn.js';
import { openCliSession } from './open-cli-session.js';
import { imageFlags, joinPrompt, noImagesError } from './prompt-input.js';
import type { ToolResultImage } from '../core/message.js';
import { readStdin } from './stdin.js';
import { forStream, terminalStream } from '../security/terminal-text.js';
import { scrubText } from '../security/scrubber.js';
import { compactionFailedTail } from '../core/compaction-notice.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** The output format of a headless run (`--output-format`, its alias `--format`, or the input's). */
export function outputFormatOf(flags: RunFlags): OutputFormat {
  return flags.outputFormat ?? flags.format ?? (flags.inputFormat === 'stream-json' ? 'stream-json' : 'text');
}

/**
 * stdout, with a listener that ignores a closed one (after SIGHUP the terminal is gone, and a
 * write to it must not turn into a crash) attached at the first write: building the stream object
 * waits until there is something to print, after the request has left.
 */
let stdoutGuarded = false;
function stdout(): NodeJS.WriteStream {
  if (!stdoutGuarded) {
    stdoutGuarded = true;
    process.stdout.on('error', () => undefined);
  }
  return process.stdout;
}

/** One JSON line on stdout, with the session's credentials redacted once a session is open. */
const writeJson = (value: unknown, session?: LiveSession) => {
  const line = JSON.stringify(value);
  stdout().write(`${session ? session.store.redactText(line) : scrubText(line)}\n`);
};

/**
 * `keen run` / `keen -p`: one turn headless (or, with `--input-format stream-json`, one turn per
 * stdin line). Text streams the visible answer to stdout; `json` prints one result object at the
 * end; `stream-json` one event per line as it happens, ending with the result. Every run with a
 * JSON format prints a result, even one that fails before the model is reached. Failures: one
 * `keen:` line on stderr and, when the session was saved, how to continue it. `git`: the prompt's
 * git status, started by the caller for this folder (the session takes it over).
 */
export async function runHeadless(words: string[], flags: RunFlags, git?: GitStatusCache): Promise<number> {
  const format = outputFormatOf(flags);
  const started = Date.now();
  let session: LiveSession;
  let input: string | undefined;
  let images: ToolResultImage[] = [];
  try {
    if (flags.inputFormat === 'stream-json') {
      if (format !== 'stream-json') throw new KeenError('--input-format stream-json needs --output-format stream-json', 2);
      if (words.length) throw new KeenError('--input-format stream-json reads the messages from stdin; pass no message on the command line', 2);
      if (flags.image?.length) throw new KeenError('--image attaches to the message of the command line; --input-format stream-json reads its messages from stdin', 2);
    } else {
      images = imageFlags(flags.image, process.cwd());
      input = joinPrompt(words, await readStdin());
      if (!input) throw new KeenError('no message: pass one as an argument or on stdin (keen -p "fix the failing test")', 2);
    }
    // A one-shot run's message is known now: its turn may use the open's project-context read.
    session = await openCliSession(flags, { firstInputKnown: input !== undefined, git });
    if (images.length > 0 && !session.resolved.info.images) {
      await session.close();
      throw noImagesError(session.resolved.name);
    }
  } catch (err) {
    if (format !== 'text') writeJson(startupResult(errorText(err), Date.now() - started));
    throw err;
  }
  // Retry waits are announced on stderr; after SIGHUP the terminal is gone, and a write to it
  // must not turn into a crash (stdout gets the same guard at its first write: stdout()).
  process.stderr.on('error', () => undefined);
  try {
    if (format === 'stream-json') writeJson(initEvent(session), session);
    if (input !== undefined) return await oneTurn(session, await headlessPrompt(session, input), format, images);
    return await streamTurns(session);
  } finally {
    await session.close();
  }
}

async function oneTurn(session: LiveSession, input: string, format: OutputFormat, images: readonly ToolResultImage[]): Promise<number> {
  const { outcome, result } = await turnWithOutput(session, input, format, images);
  if (format === 'json') writeJson(result, session);
  reportEnd(session, outcome);
  return exitCodeOf(outcome);
}

/** `--input-format stream-json`: a long-lived session, one turn per user line, until stdin ends. */
async function streamTurns(session: LiveSession): Promise<number> {
  let code = 0;
  for await (const line of readInputLines(process.stdin)) {
    if (!line.ok) {
      process.stderr.write(forStream(process.stderr, `keen: stdin line ${line.line} skipped: ${line.error}\n`));
      code = 1;
      continue;
    }
    const { outcome } = await turnWithOutput(session, await headlessPrompt(session, line.text), 'stream-json');
    const turnCode = exitCodeOf(outcome);
    if (turnCode !== 0) {
      reportEnd(session, outcome);
      code = turnCode;
      if (turnCode === 130) break;
    }
  }
  return code;
}

async function turnWithOutput(
  session: LiveSession,
  input: string,
  format: OutputFormat,
  images: readonly ToolResultImage[] = [],
): Promise<{ outcome: TurnOutcome; result: RunResult }> {
  const spentBefore: Usage = session.controller.spent;
  const text = textPrinter();
  const print = format === 'text' ? text.observe : format === 'stream-json' ? streamPrinter(session) : () => undefined;
  const observe: TurnObserver = (ev) => {
    // In every format, a retry wait is one stderr line (stream-json also has it as an event).
    if (ev.type === 'retry_wait') process.stderr.write(forStream(process.stderr, `keen: ${describeRetryWait(ev.wait)}\n`));
    // So is a failed automatic compaction (the REPL's notice): the turn goes on with the history as it was.
    if (ev.type === 'auto_compaction_failed') process.stderr.write(forStream(process.stderr, `keen: automatic compaction failed: ${compactionFailedTail(ev.reason)}\n`));
    print(ev);
  };
  const outcome = await runHeadlessTurn(session, input, observe, images);
  if (format === 'text') text.finish();
  const result = turnResult(session, outcome, usageSince(spentBefore, session.controller.spent));
  if (format === 'stream-json') writeJson(result, session);
  return { outcome, result };
}

/**
 * Streams the visible text; consecutive model requests are separated by a newline. To a terminal
 * the text goes through the sanitiser (src/security/terminal-text.ts: control characters as visible
 * escapes, so model output cannot set the clipboard or the title); to a pipe or file it is the
 * exact text, as JSON and stream-json are exact data.
 */
function textPrinter(): { observe: TurnObserver; finish(): void } {
  let printed = '';
  let out: { write(text: string): void; end(): void } | undefined;
  const write = (text: string) => {
    out ??= stdout().isTTY ? terminalStream((t) => stdout().write(t)) : { write: (t) => void stdout().write(t), end: () => undefined };
    out.write(text);
  };
  const observe: TurnObserver = (ev) => {
    if (ev.type === 'text_delta') {
      printed += ev.text;
      write(ev.text);
    } else if (ev.type === 'message' && ev.message.role === 'assistant' && printed && !printed.endsWith('\n')) {
      printed += '\n';
      write('\n');
    }
  };
  return {
    observe,
    finish: () => {
      out?.end();
      if (printed && !printed.endsWith('\n')) write('\n');
    },
  };
}

function streamPrinter(session: LiveSession): TurnObserver {
  return (ev) => {
    const out = toStreamEvent(ev);
    if (out) writeJson(out, session);
  };
}

/** The failure, max-turns or refusal line, and how to continue a saved session that did not finish. */
function reportEnd(session: LiveSession, outcome: TurnOutcome): void {
  const unfinished = outcome.failure?.message ?? unfinishedMessage(outcome);
  if (unfinished === undefined) return;
  process.stderr.write(forStream(process.stderr, `keen: ${session.store.redactText(unfinished)}\n`));
  if (session.store.persisted) process.stderr.write(`Run \`keen run --session ${session.sessionId}\` to continue.\n`);
}

function usageSince(before: Usage, now: Usage): Usage {
  return addUsage(emptyUsage(), {
    input: now.input - before.input,
    output: now.output - before.output,
    cache_read: now.cache_read - before.cache_read,
    cache_write: now.cache_write - before.cache_write,
  });
}
