import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor } from '../../src/llm/net/proxy.js';

describe('NO_PROXY', () => {
  it('matches hosts, subdomains, ports and *', () => {
    expect(bypassesProxy('https://api.example.com/v1', 'example.com')).toBe(true);
    expect(bypassesProxy('https://api.example.com/v1', '.example.com')).toBe(true);
    expect(bypassesProxy('https://notexample.com/v1', 'example.com')).toBe(false);
    expect(bypassesProxy('http://127.0.0.1:8080/', '127.0.0.1:8080')).toBe(true);
    expect(bypassesProxy('http://127.0.0.1:9090/', '127.0.0.1:8080')).toBe(false);
    expect(bypassesProxy('https://anything.io', '*')).toBe(true);
    expect(bypassesProxy('https://anything.io', ' , ')).toBe(false);
  });

  it('picks HTTPS_PROXY for https and HTTP_PROXY for http, unless exempt', () => {
    const env = { HTTPS_PROXY: 'http://secure:1', HTTP_PROXY: 'http://plain:2', NO_PROXY: 'internal.corp' };
    expect(proxyFor('https://bedrock-runtime.us-east-1.amazonaws.com', env)).toBe('http://secure:1');
    expect(proxyFor('http://localhost:9', env)).toBe('http://plain:2');
    expect(proxyFor('https://api.internal.corp', env)).toBeUndefined();
    expect(proxyFor('https://x.io', {})).toBeUndefined();
  });
});
