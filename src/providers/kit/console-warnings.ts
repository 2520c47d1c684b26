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
/** Each routing function installed, with the `console.warn` it was installed over. */
const installed = new WeakMap<typeof console.warn, typeof console.warn>();

/** The route a text goes to: the request's own, else the latest held route that recognises it. */
function routeOf(text: string): ConsoleWarningRoute | undefined {
  const own = attributed.getStore();
  if (own && holds.has(own) && own.recognises(text)) return own;
  let latest: ConsoleWarningRoute | undefined;
  for (const route of holds.keys()) if (route.recognises(text)) latest = route;
  return latest;
}

/** A routing function over `previous`: a held route's texts to the route, the rest to `previous`. */
function routing(previous: typeof console.warn): typeof console.warn {
  const routed = (...args: unknown[]): void => {
    const text = holds.size ? format(...args) : '';
    const route = holds.size ? routeOf(text) : undefined;
    if (route) route.report(text);
    else previous.apply(console, args);
  };
  installed.set(routed, previous);
  return routed;
}

/** Installs a routing function over `console.warn` unless it is one of ours. */
function routeConsole(): void {
  if (!installed.has(console.warn)) console.warn = routing(console.warn);
}

/**
 * Takes `console.warn` for the duration of an asynchronous library call (a request and its
 * stream) whose library warns with a bare `console.warn` (the AWS SDK's JSON codec), so that its
 * warnings become Keen's warning line instead of raw stderr or torn REPL frames. Only texts a held
 * route recognises are taken; every other `console.warn` passes through to the `console.warn` it
 * was installed over, with its arguments untouched. Holds nest and overlap (parallel requests,
 * sub-agents).
 *
 * Other code may replace `console.warn` meanwhile (Ink's console patch, another library): a hold
 * and each attempt's `run` install a routing function over the `console.warn` of the moment
 * unless it is one of ours. When the last hold ends, `console.warn` is given back only if it is
 * still ours (to what that one was installed over); a replacement made since is left in place,
 * and a routing function of ours that it still calls passes everything through while nothing
 * is held.
 */
export function holdConsoleWarnings(route: ConsoleWarningRoute): ConsoleWarningHold {
  routeConsole();
  holds.set(route, (holds.get(route) ?? 0) + 1);
  let released = false;
  return {
    run(call) {
      if (!released) routeConsole();
      return attributed.run(route, call);
    },
    release() {
      if (released) return;
      released = true;
      const left = (holds.get(route) ?? 1) - 1;
      if (left > 0) holds.set(route, left);
      else holds.delete(route);
      const previous = installed.get(console.warn);
      if (holds.size === 0 && previous) console.warn = previous;
    },
  };
}
