// Stands in for `yoga-layout` in the bundle (scripts/build.mjs): its entry awaits the wasm at the
// top level, which a CommonJS bundle cannot. The same object as the real module's default export:
// the enums at once, `Node` and `Config` when `ready` resolves. src/repl/yoga-ready.ts waits for
// `ready` before Ink lays anything out (Ink reads `Yoga.Node` only when it creates a node).
import * as yogaLoad from 'yoga-layout/load';

export * from 'yoga-layout/load';

const Yoga = {};
for (const [name, value] of Object.entries(yogaLoad)) if (name !== 'loadYoga') Yoga[name] = value;

// yoga's emscripten loader decodes its embedded wasm (a data: URL) through the global `fetch`
// when there is one, which loads Node's undici on the REPL's startup path; where there is none it
// decodes it itself. It looks once, synchronously, inside loadYoga(): the global is set aside for
// that call only, and nothing else runs in between.
const fetchProperty = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
const hideFetch = fetchProperty?.configurable === true;
let loading;
if (hideFetch) delete globalThis.fetch;
try {
  loading = yogaLoad.loadYoga();
} finally {
  if (hideFetch) Object.defineProperty(globalThis, 'fetch', fetchProperty);
}
Yoga.ready = loading.then((yoga) => {
  Object.assign(Yoga, yoga);
});

/** Resolves once `Node` and `Config` are there (named too: the bundle imports it by name). */
export const ready = Yoga.ready;

export default Yoga;
