import { format } from 'node:util';

/**
 * Where a provider's library warnings go: Keen's own warning line, each text once per adapter
 * (a session's), prefixed with the service's name. Without a sink they are dropped — never raw
 * on stderr, where they would tear the REPL's screen.
 */
export class LibraryWarnings {
  private readonly seen = new Set<string>();

  constructor(
    private readonly service: string,
    private readonly sink: ((line: string) => void) | undefined,
  ) {}

  /** One warning text from the library; repeats of a text already reported are dropped. */
  report(text: string): void {
    const line = text.replace(/\s+/g, ' ').trim();
    if (!line || this.seen.has(line)) return;
    this.seen.add(line);
    this.sink?.(`${this.service}: ${line}`);
  }

  /**
   * Runs `call` — a synchronous SDK call that `console.warn`s before it returns its promise (the
   * Anthropic SDK's checks of the model and the thinking form have no logger hook) — with those
   * warnings reported here instead. Only for the duration of the synchronous call: nothing else
   * runs meanwhile, so no other output is caught, and console is itself again when it returns.
   */
  during<T>(call: () => T): T {
    const original = console.warn;
    console.warn = (...args: unknown[]) => this.report(format(...args));
    try {
      return call();
    } finally {
      console.warn = original;
    }
  }
}
