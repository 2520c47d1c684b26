/**
 * Injected into the bundle by scripts/build.mjs (esbuild `inject`): every free `Headers` and
 * `FormData` in the bundled code — the provider SDKs, Keen — means these instead of Node's
 * globals, which live in undici and load it on first touch (fetch-headers.ts). Nothing
 * here runs in tests from source: there the SDKs meet Node's own classes, which http-fetch.ts
 * accepts as well.
 */
import { FetchHeaders } from './fetch-headers.js';

export { FetchHeaders as Headers };

/**
 * The SDKs ask `body instanceof FormData` of every request body; answering that must not load
 * undici. Constructing one (a file upload, which Keen never sends) builds Node's own.
 */
class FormDataOnDemand {
  constructor(...args: ConstructorParameters<typeof globalThis.FormData>) {
    // biome-ignore lint/correctness/noConstructorReturn: the shim stands in for Node's class
    return new globalThis.FormData(...args) as unknown as FormDataOnDemand;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object FormData]';
  }
}

export { FormDataOnDemand as FormData };
