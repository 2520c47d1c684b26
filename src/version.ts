declare const KEEN_VERSION: string | undefined;

/** Injected by the bundler; falls back for tests that run the sources directly. */
export const VERSION: string = typeof KEEN_VERSION === 'string' ? KEEN_VERSION : '0.0.0-dev';

/** `keen --version` (alone): answered before anything else loads, by the launcher and by main. */
export function isVersionRequest(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V' || args[0] === '-v');
}
