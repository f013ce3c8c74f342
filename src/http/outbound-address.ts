// Where the server's own outbound requests may go (webhook deliveries, single sign-on discovery
// and token exchange): only public unicast addresses, checked against the addresses a name
// resolves to at the time of the request. Loopback, private, link-local (cloud metadata),
// carrier-grade NAT, unique-local, IPv4-compatible (::/96), NAT64 and reserved ranges are refused
// unless the operator allowed loopback or allow-listed the range. The caller then connects to
// the address that was checked, so a second DNS answer cannot redirect it (DNS rebinding).
import dns from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface OutboundPolicy {
  allowLoopback: boolean;
  /** CIDR ranges (`10.20.0.0/16`) the operator allows besides public addresses. */
  allowedNetworks: readonly string[];
}

/** Resolves a host name to every address it has (the system resolver, as connections use). */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** The URL's host without the brackets of an IPv6 literal. */
export const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** `localhost` and its subdomains, which resolvers answer with a loopback address. */
export const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Global unicast IPv6 (2000::/3): the only IPv6 addresses on the public internet. */
const GLOBAL_IPV6 = ipaddr.parseCIDR('2000::/3');
/** IPv4-compatible IPv6 (::a.b.c.d, deprecated): some stacks carry it to the IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** The kind of address, as ipaddr.js names ranges, with the IPv6 ranges it calls unicast narrowed. */
function kindOf(parsed: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = parsed.range();
  if (range !== 'unicast' || parsed.kind() === 'ipv4') return range;
  if (parsed.match(IPV4_COMPATIBLE)) return 'IPv4-compatible (::/96)';
  return parsed.match(GLOBAL_IPV6) ? 'unicast' : 'unassigned';
}

/** Why an address may not be reached, or undefined when it may. */
export function refusal(address: string, policy: OutboundPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const kind = kindOf(parsed);
  if (kind === 'unicast') return undefined;
  if (kind === 'loopback' && policy.allowLoopback) return undefined;
  for (const cidr of policy.allowedNetworks) {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    if (network.kind() === parsed.kind() && parsed.match(network, bits)) return undefined;
  }
  const what = kind === 'linkLocal' ? 'link-local (cloud metadata lives there)' : kind;
  return `${parsed.toString()} is a ${what} address; only public addresses may be reached unless the operator allows its range`;
}

/**
 * A refused destination. The message names the host as it was asked for and never the
 * addresses a name resolved to: whoever reads it learns nothing about internal names.
 */
export class AddressRefused extends Error {
  override name = 'AddressRefused';
}

/**
 * The address to connect to for this request: the host resolved now, refused if ANY of its
 * addresses is refused (a name pointing at both a public and a private address is refused
 * rather than left to chance), else the first.
 */
export async function pinAddress(url: URL, policy: OutboundPolicy, resolve: Resolver): Promise<string> {
  const host = bareHost(url.hostname);
  if (ipaddr.isValid(host)) {
    const why = refusal(host, policy);
    if (why) throw new AddressRefused(why);
    return host;
  }
  const addresses = await resolve(host);
  if (addresses.some((address) => refusal(address, policy) !== undefined))
    throw new AddressRefused(
      `${host} resolves to an address that is not public and not in a range the operator allows`,
    );
  const first = addresses[0];
  if (first === undefined) throw new Error(`${host} resolved to no address`);
  return first;
}
