/**
 * The one spelling of a web_fetch host that domain rules compare: what the URL parser makes of
 * it (lower case, punycode, IPv4 in any notation as dotted decimal, IPv6 compressed in brackets),
 * without trailing dots — `evil.com.` is the same host as `evil.com` to DNS and must be to a rule.
 * Pure.
 */
export function canonicalHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, '');
}

/** A rule's `domain:` text in canonical form, or undefined when no URL could name that host. */
export function canonicalRuleHost(text: string): string | undefined {
  try {
    const host = new URL(`http://${text}/`).hostname;
    return host && !/[/@?#]/.test(text) ? canonicalHost(host) : undefined;
  } catch {
    return undefined;
  }
}

/** An IP address (v4 dotted, v6 in brackets): a rule for one covers that address only, no "subdomains". */
function isIpHost(host: string): boolean {
  return host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/** Whether a domain rule for `domain` (canonical) covers `host` (canonical): the host itself or a subdomain. */
export function domainCovers(domain: string, host: string): boolean {
  return host === domain || (!isIpHost(domain) && !isIpHost(host) && host.endsWith(`.${domain}`));
}
