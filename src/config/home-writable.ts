import { existsSync, accessSync, constants } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { errorText, KeenError } from '../errors.js';

/**
 * A one-line error for a failed mkdir/write under `KEEN_HOME`. A recursive mkdir below a
 * read-only folder reports ENOENT, which sends the user looking for a missing folder; this names
 * the folder that cannot be written instead (read-only file system, or no write permission).
 */
export function homeWriteError(home: string, target: string, err: unknown): KeenError {
  let dir = resolve(target);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
  } catch (probe) {
    const code = (probe as NodeJS.ErrnoException).code;
    const why = code === 'EROFS' ? 'is on a read-only file system' : 'is not writable';
    return new KeenError(`cannot write Keen's state: ${dir} ${why}; set KEEN_HOME to a writable folder (now ${home})`);
  }
  return new KeenError(`cannot write Keen's state under ${home}: ${errorText(err)}`);
}

/**
 * Throws the one-line error of {@link homeWriteError} when `target` (or the nearest folder of it
 * that exists) cannot be written, creating nothing: a new session is written only once the model
 * answers, but a read-only KEEN_HOME should be named before any request is sent.
 */
export function assertWritableBelow(home: string, target: string): void {
  let dir = resolve(target);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw homeWriteError(home, target, err);
  }
}
