import fs from 'node:fs';
import { projectConfigPath } from './paths.js';
import { trustDecision, trustProject } from './trust.js';

export interface TrustPromptOptions {
  home: string;
  cwd: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** `--trust` or `--yolo` was given: nothing to ask. */
  decided?: boolean;
}

/**
 * The REPL's once-per-folder question. Asked only when the folder has a project config whose
 * trust-gated keys (permission rules, …) would count if trusted and the user never answered for
 * this folder; the answer (yes or no) is remembered, so it is asked once. Runs before the first
 * frame, on the plain terminal. Returns true when the user trusted the folder now.
 */
export async function askTrustIfNeeded(opts: TrustPromptOptions): Promise<boolean> {
  if (opts.decided) return false;
  const file = projectConfigPath(opts.cwd);
  if (!fs.existsSync(file)) return false; // the common case costs one stat
  if (trustDecision(opts.home, opts.cwd)) return false;
  const { loadConfig } = await import('./load.js');
  const { needsTrust } = loadConfig(opts.home, opts.cwd, { projectTrusted: false });
  if (needsTrust.length === 0) return false;
  opts.output.write(`${file} asks for ${needsTrust.join(', ')}.\nTrust this folder? Only trust folders whose files you know. Keen remembers the answer. [y/N] `);
  const answer = await readLine(opts.input);
  const trusted = /^\s*y(es)?\s*$/i.test(answer);
  trustProject(opts.home, opts.cwd, trusted);
  return trusted;
}

/** One line from the terminal (cooked mode), leaving the stream paused for the REPL to take over. */
function readLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      input.off('data', onData);
      input.off('end', done);
      input.pause();
      resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl !== -1) {
        text = text.slice(0, nl);
        done();
      }
    };
    input.on('data', onData);
    input.once('end', done);
    input.resume();
  });
}
