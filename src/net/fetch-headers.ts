/**
 * The Fetch standard's `Headers`, in plain JavaScript. Node 20's own `Headers` (like `Request`,
 * `Response` and `FormData`) lives in its bundled undici, which the first use loads and compiles,
 * on the path to every first model request (the cost: docs/performance.md). http-fetch.ts answers with
 * these, and the bundle's SDKs build theirs with this class (scripts/build.mjs injects it for the
 * free name `Headers`; see fetch-globals.ts), so a `keen run` never loads undici.
 *
 * Semantics as the standard's (and undici's): names are case-insensitive and kept lower-case;
 * values lose leading and trailing HTTP whitespace; a name that is not a token, or a value with
 * NUL, CR, LF or a character above U+00FF, throws a TypeError; `get` joins repeated values with
 * ", "; iteration is sorted by name, with each `set-cookie` value on its own.
 */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a header value may not hold
const INVALID_VALUE = /[\0\r\n]|[^\0-\u00ff]/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function headerName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name: ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

function headerValue(name: string, value: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, '');
  if (INVALID_VALUE.test(text)) throw new TypeError(`Headers: invalid value for header ${JSON.stringify(name)}`);
  return text;
}

type Init = Headers | Iterable<readonly [string, string] | readonly string[]> | Record<string, string | readonly string[]>;

export class FetchHeaders implements Headers {
  /** Lower-case name → values in the order they were appended. */
  readonly #values = new Map<string, string[]>();

  constructor(init?: Init | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object' && typeof init !== 'function') throw new TypeError('Headers: the init must be an object, an array of pairs or a Headers');
    const pairs = (init as Partial<Iterable<unknown>>)[Symbol.iterator];
    if (typeof pairs === 'function') {
      for (const pair of init as Iterable<readonly string[]>) {
        if (!pair || typeof pair !== 'object' || pair.length !== 2) throw new TypeError('Headers: each header must be a [name, value] pair');
        this.append(pair[0], pair[1]);
      }
      return;
    }
    for (const [name, value] of Object.entries(init as Record<string, string | readonly string[]>)) {
      // A record's value is one header value (a list becomes "a,b", as String([...]) would).
      this.append(name, String(value));
    }
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const text = headerValue(key, value);
    const list = this.#values.get(key);
    if (list) list.push(text);
    else this.#values.set(key, [text]);
  }

  set(name: string, value: string): void {
    const key = headerName(name);
    this.#values.set(key, [headerValue(key, value)]);
  }

  delete(name: string): void {
    this.#values.delete(headerName(name));
  }

  has(name: string): boolean {
    return this.#values.has(headerName(name));
  }

  get(name: string): string | null {
    return this.#values.get(headerName(name))?.join(', ') ?? null;
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#sorted()) callback.call(thisArg, value, name, this);
  }

  *entries(): HeadersIterator<[string, string]> {
    yield* this.#sorted();
  }

  *keys(): HeadersIterator<string> {
    for (const [name] of this.#sorted()) yield name;
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.#sorted()) yield value;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  /** The pairs as the standard iterates them: sorted by name, set-cookie values one by one. */
  #sorted(): [string, string][] {
    const out: [string, string][] = [];
    for (const name of [...this.#values.keys()].sort()) {
      const list = this.#values.get(name) ?? [];
      if (name === 'set-cookie') for (const value of list) out.push([name, value]);
      else out.push([name, list.join(', ')]);
    }
    return out;
  }
}
