import { readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ToolResultImage } from '../core/message.js';
import { KeenError } from '../errors.js';
import { loadImageFile } from '../tools/image-file.js';

/**
 * The message of a headless run: the words of the command line (all of them: `keen -p fix the
 * bug`) and, when stdin is a pipe, its content after them (`echo CONTEXT | keen -p summarize`, as
 * Claude Code does). Undefined when both are empty.
 */
export function joinPrompt(words: readonly string[], stdin: string | undefined): string | undefined {
  const prompt = words.join(' ').trim();
  const piped = stdin?.replace(/\s+$/, '') ?? '';
  const message = [prompt, piped].filter((part) => part.trim() !== '').join('\n\n');
  return message || undefined;
}

/**
 * `--system-prompt` / `--append-system-prompt` value: the text itself, or `@FILE` for a file's
 * content (relative to the working directory). An unreadable file is a KeenError naming flag and file.
 */
export function promptFlagText(flag: string, value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  if (!value.startsWith('@')) return value;
  const file = resolve(cwd, value.slice(1));
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new KeenError(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
}

/**
 * `-C DIR` / `--cwd DIR`: runs as if started in DIR (its real path). Not a directory: KeenError.
 */
export function enterDirectory(dir: string): void {
  let real: string;
  try {
    real = realpathSync(resolve(dir));
  } catch {
    throw new KeenError(`--cwd ${dir}: no such directory`, 2);
  }
  if (!statSync(real).isDirectory()) throw new KeenError(`--cwd ${dir}: not a directory`, 2);
  process.chdir(real);
}

/**
 * `--image PATH` values (repeatable), read and checked (src/tools/image-file.ts) before a session
 * opens: a missing, oversized or non-image file is a KeenError naming flag and file.
 */
export function imageFlags(paths: readonly string[] | undefined, cwd: string, env: NodeJS.ProcessEnv = process.env): ToolResultImage[] {
  return (paths ?? []).map((p) => {
    const loaded = loadImageFile(p, cwd, env, `--image ${p}`);
    if ('problem' in loaded) throw new KeenError(loaded.problem, 2);
    return loaded.image;
  });
}

/** The one line for a run whose model takes no images (the REPL says the same, as a notice). */
export function noImagesError(model: string): KeenError {
  return new KeenError(`--image: model ${model} takes no images (a config "models" entry with "images": true says it does)`, 2);
}
