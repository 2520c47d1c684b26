/**
 * TEST-ONLY certificates and keys for the proxy tunnel tests (test/net/connect-tunnel.test.ts).
 * Self-signed, valid 2000-01-01 to 2126-01-01, made once with openssl; they protect nothing:
 * the keys are public here on purpose and no code outside test/ may trust these certificates.
 * - `TARGET`: an HTTPS server named `model.test` and `127.0.0.9` (subjectAltName DNS + IP) —
 *   the fake proxy routes every tunnel to 127.0.0.1, so those names are only what the client checks.
 * - `PROXY`: a TLS proxy at `127.0.0.1` (subjectAltName IP only).
 */

export const TARGET = {
  cert: `
-----BEGIN CERTIFICATE-----
MIIBajCCARCgAwIBAgIBATAKBggqhkjOPQQDAjAVMRMwEQYDVQQDDAptb2RlbC50
ZXN0MCAXDTAwMDEwMTAwMDAwMFoYDzIxMjYwMTAxMDAwMDAwWjAVMRMwEQYDVQQD
DAptb2RlbC50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8q7mXIp/tDIf
IJYgecFKXCz7dF3HSdf6s0vm23QY6aIGJzOKmOgVpjyTadAD0p+w+o4W5zu2NEx6
0Vur3EAUZ6NPME0wGwYDVR0RBBQwEoIKbW9kZWwudGVzdIcEfwAACTAPBgNVHRMB
Af8EBTADAQH/MB0GA1UdDgQWBBRQBWu5/0EbLV3QeL6vZ7d8ZIwBYjAKBggqhkjO
PQQDAgNIADBFAiEApcf19RTeyq+WqNxeo35OSvxLTV9w84IYkgOjLiPGmhkCIGEj
EmNAZ2ESX4ZnBZDd4Y0YE2R78F5uMa/Jiz060+j8
-----END CERTIFICATE-----
`,
  key: `
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNGGOpjM9BOc7XQvu
R2JqgVgSogz/zi8KqDoc2h3pHqihRANCAATyruZcin+0Mh8gliB5wUpcLPt0XcdJ
1/qzS+bbdBjpogYnM4qY6BWmPJNp0APSn7D6jhbnO7Y0THrRW6vcQBRn
-----END PRIVATE KEY-----
`,
};

export const PROXY = {
  cert: `
-----BEGIN CERTIFICATE-----
MIIBaTCCAQ6gAwIBAgIBAjAKBggqhkjOPQQDAjAaMRgwFgYDVQQDDA9rZWVuIHRl
c3QgcHJveHkwIBcNMDAwMTAxMDAwMDAwWhgPMjEyNjAxMDEwMDAwMDBaMBoxGDAW
BgNVBAMMD2tlZW4gdGVzdCBwcm94eTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IA
BIj09fmCDWyDBT4uktVeDbQwrt4IYB7HY0Iwe7MoCbbGvMfOrO5gVrcSXzB4zhZt
1ri00zD1nnluew5uz5uZu0GjQzBBMA8GA1UdEQQIMAaHBH8AAAEwDwYDVR0TAQH/
BAUwAwEB/zAdBgNVHQ4EFgQUMZmTJVrSBZBGq0ZPneNzmbqSIKYwCgYIKoZIzj0E
AwIDSQAwRgIhAJMGGLmEfHEU/ee1hLxZmt14Mk0XBG+evUF1LjqMn2nqAiEAxO0J
bPA/VcKbm7ZF4UVo78RKpdM+5aJgIMDc2U+KZtc=
-----END CERTIFICATE-----
`,
  key: `
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/rKGJyXb0f9Krydz
UaJLjLwBba6rrPOUT7M0TUBtvpOhRANCAASI9PX5gg1sgwU+LpLVXg20MK7eCGAe
x2NCMHuzKAm2xrzHzqzuYFa3El8weM4Wbda4tNMw9Z55bnsObs+bmbtB
-----END PRIVATE KEY-----
`,
};
