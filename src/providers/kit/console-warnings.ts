import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';

/** A library whose warnings bypass its logger: which `console.warn` texts are its, and where they go. */
export interface ConsoleWarningRoute {
  /** Whether a formatted `console.warn` text is recognisably this library's. */
  recognises(text: string): boolean;
  /** One recognised text; the route reports it (once per text, see LibraryWarnings). */
  report(text: string): void;
}

/** One request's hold on `console.warn`: `run` starts the library call, `release` ends the hold. */
export interface ConsoleWarningHold {
  /** Runs `call` so that what its asynchronous work warns is attributed to this route. */
  run<T>(call: () => T): T;
  /** Ends this hold (again is a no-op); the last one to end gives console its own warn back. */
  release(): void;
}

const holds = new Map<ConsoleWarningRoute, number>();
const attributed = new AsyncLocalStorage<ConsoleWarningRoute>();
let original: typeof console.warn = console.warn;
/** Whether `routed` is in console's chain: installed, and not given back (see release). */
let inChain = false;

/** The route a text goes to: the request's own, else the latest held route that recognises it. */
function routeOf(text: string): ConsoleWarningRoute | undefined {
  const own = attributed.getStore();
  if (own && holds.has(own) && own.recognises(text)) return own;
  let latest: ConsoleWarningRoute | undefined;
  for (const route of holds.keys()) if (route.recognises(text)) latest = route;
  return latest;
}

function routed(...args: unknown[]): void {
  const text = holds.size ? format(...args) : '';
  const route = holds.size ? routeOf(text) : undefined;
  if (route) route.report(text);
  else original.apply(console, args);
}

/**
 * Takes `console.warn` for the duration of an asynchronous library call (a request and its
 * stream) whose library warns with a bare `console.warn` (the AWS SDK's JSON codec), so that its
 * warnings become Keen's warning line instead of raw stderr or torn REPL frames. Only texts a held
 * route recognises are taken; every other `console.warn` passes through to the console's own, with
 * its arguments untouched. Holds nest and overlap (parallel requests, sub-agents): console is
 * itself again when the last one is released, unless something replaced `console.warn` meanwhile
 * (then it is left alone; the routing function passes everything through once nothing is held).
 */
export function holdConsoleWarnings(route: ConsoleWarningRoute): ConsoleWarningHold {
  if (!inChain) {
    original = console.warn;
    console.warn = routed;
    inChain = true;
  }
  holds.set(route, (holds.get(route) ?? 0) + 1);
  let released = false;
  return {
    run: (call) => attributed.run(route, call),
    release() {
      if (released) return;
      released = true;
      const left = (holds.get(route) ?? 1) - 1;
      if (left > 0) holds.set(route, left);
      else holds.delete(route);
      if (holds.size === 0 && console.warn === routed) {
        console.warn = original;
        inChain = false;
      }
    },
  };
}
