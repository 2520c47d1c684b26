// Stands in for `yoga-layout` in the bundle (scripts/build.mjs): its entry awaits the wasm at the
// top level, which a CommonJS bundle cannot. The same object as the real module's default export:
// the enums at once, `Node` and `Config` when `ready` resolves. src/repl/yoga-ready.ts waits for
// it before Ink lays anything out (Ink reads `Yoga.Node` only when it creates a node).
import * as yogaLoad from 'yoga-layout/load';

export * from 'yoga-layout/load';

const Yoga = {};
for (const [name, value] of Object.entries(yogaLoad)) if (name !== 'loadYoga') Yoga[name] = value;
Yoga.ready = yogaLoad.loadYoga().then((yoga) => {
  Object.assign(Yoga, yoga);
});

export default Yoga;
