/**
 * The `require` the bundle gets: packages the build put in an island (a script of their own,
 * dist/<name>.cjs; scripts/build.mjs `ISLANDS`) come from that script, compiled the first time
 * one of them is required; every other specifier goes to Node's `require`.
 *
 * Invariants:
 * - An island is compiled and run at most once per process; its modules initialise one by one,
 *   when the bundle first requires each (as bundled modules do).
 * - `table` is fixed by the build: only the specifiers the bundle itself requires, each mapped to
 *   one island. An island never requires another island.
 */
export function islandRequire(base: NodeJS.Require, table: Readonly<Record<string, string>>, load: (island: string) => unknown): NodeJS.Require {
  const loaded = new Map<string, Record<string, () => unknown>>();
  const served = (id: string): unknown => {
    const island = Object.hasOwn(table, id) ? table[id] : undefined;
    if (island === undefined) return base(id);
    let modules = loaded.get(island);
    if (!modules) {
      modules = load(island) as Record<string, () => unknown>;
      loaded.set(island, modules);
    }
    return modules[id]();
  };
  return Object.assign(served, { resolve: base.resolve, cache: base.cache, main: base.main, extensions: base.extensions }) as NodeJS.Require;
}
