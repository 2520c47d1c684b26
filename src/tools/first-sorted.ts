/**
 * The items of a big list in sorted order, lazily: each step selects the next `batch` smallest
 * with a bounded heap (linear in the list) instead of sorting it all. A caller that stops after
 * the first few hundred of 100,000 (a listing cut at its cap) pays for one pass, not a sort.
 */
export function* sortedLazily<T>(items: readonly T[], compare: (a: T, b: T) => number, batch: number): Generator<T> {
  let rest = items.slice();
  while (rest.length > 0) {
    if (rest.length <= batch * 4) {
      yield* rest.sort(compare);
      return;
    }
    const smallest = selectSmallest(rest, compare, batch);
    const taken = new Set(smallest);
    rest = rest.filter((item) => !taken.has(item));
    yield* smallest;
  }
}

/** The `k` smallest of `items` (distinct objects or values), sorted: a max-heap of size k. */
export function selectSmallest<T>(items: readonly T[], compare: (a: T, b: T) => number, k: number): T[] {
  const heap: T[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compare(heap[i], heap[parent]) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && compare(heap[l], heap[top]) > 0) top = l;
      if (r < heap.length && compare(heap[r], heap[top]) > 0) top = r;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top], heap[i]];
      i = top;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      up(heap.length - 1);
    } else if (k > 0 && compare(item, heap[0]) < 0) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort(compare);
}
