import { type BigIntStats, fstatSync, readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { errorText, KeenError } from '../errors.js';

/**
 * Reads all of stdin when it is not a terminal; undefined for a TTY or an empty pipe.
 *
 * A terminal is recognised from the descriptor, without building `process.stdin` (a stream
 * object is built only when needed), and a regular file or a device such as `/dev/null` is read
 * in one synchronous call: there is nothing to wait for, and the stream machinery would only
 * delay a `keen run` started with `</dev/null` (scripts, CI, the bench). Pipes and
 * sockets are read as a stream, as they arrive.
 */
export async function readStdin(): Promise<string | undefined> {
  if (isatty(0)) return undefined;
  try {
    const whole = readWholeFile();
    if (whole !== undefined) return whole.length ? whole.toString('utf8') : undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text.length ? text : undefined;
  } catch (err) {
    // Too large for one string (~512 MB), over 2 GiB for one read, or not readable (`0>/dev/null`).
    throw new KeenError(`could not read stdin: ${errorText(err)}`, 2);
  }
}

/**
 * The rest of stdin when it is a regular file or a character device; undefined for a pipe, a
 * socket or a descriptor that cannot be examined. A failing read throws, as the stream would.
 */
function readWholeFile(): Buffer | undefined {
  let st: BigIntStats;
  try {
    // `bigint`: a plain fstat of a pipe or socket leaves its type in the buffer Node's realpath
    // reads back for path parts it has cached (nodejs/node#51142), and every later module
    // resolution stops following symlinks — behind pnpm's symlinked node_modules, genkit then
    // loaded a second copy of dotprompt ("Dotprompt is not a constructor"). BigInt stats use
    // another buffer.
    st = fstatSync(0, { bigint: true });
  } catch {
    return undefined;
  }
  if (!st.isFile() && !st.isCharacterDevice()) return undefined;
  return readFileSync(0);
}
