import { createRequire } from 'node:module';

type Marked = typeof import('marked');
let marked: Marked | undefined;

/**
 * marked's lexer, loaded at the first finished markdown block (`createRequire`, so it stays out
 * of the bundle, as yaml does): importing marked builds its rule regexes, which used to
 * sit between launch and the REPL's first frame. A block is finished only after the session
 * opened, well after the first frame. marked is ESM; Node ≥ 20.19 requires it without a warning.
 */
export function markedLexer(): Marked['Lexer'] {
  marked ??= createRequire(import.meta.url)('marked') as Marked;
  return marked.Lexer;
}
