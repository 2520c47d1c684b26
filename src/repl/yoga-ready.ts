/**
 * Ink's layout engine compiles its wasm asynchronously. Run from the sources, `yoga-layout` has
 * done so before its import resolves; in the bundle it is a stand-in that fills itself in when
 * `ready` resolves (scripts/yoga-layout-async.mjs). The REPL awaits this before Ink renders.
 */
import Yoga from 'yoga-layout';

export async function yogaReady(): Promise<void> {
  await (Yoga as { ready?: Promise<void> }).ready;
}
