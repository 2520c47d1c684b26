/**
 * Ink's layout engine compiles its wasm asynchronously. Run from the sources, `yoga-layout` has
 * done so before its import resolves; in the bundle it is a stand-in whose `ready` resolves when
 * it has filled itself in (scripts/yoga-layout-async.mjs). The REPL awaits this before Ink renders.
 */
import * as yoga from 'yoga-layout';

export async function yogaReady(): Promise<void> {
  await (yoga as unknown as { ready?: Promise<void> }).ready;
}
