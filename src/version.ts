declare const KEEN_VERSION: string | undefined;

/** Injected by the bundler; falls back for tests that run the sources directly. */
export const VERSION: string = typeof KEEN_VERSION === 'string' ? KEEN_VERSION : '0.0.0-dev';
