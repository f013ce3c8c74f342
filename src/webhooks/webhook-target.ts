// Where deliveries may go (docs/webhooks.md, Addresses): https URLs only, plain http only to a
// loopback address when the operator allows loopback for testing; and, checked again on every
// attempt against the addresses the name resolves to then, only public unicast addresses —
// private, loopback, link-local (cloud metadata), carrier-grade NAT, unique-local and reserved
// ones are refused unless the operator allow-listed their range. The sender then connects to
// the address that was checked, so a second DNS answer cannot redirect it (DNS rebinding).
import dns from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { AppError } from '../core/errors.js';

export const MAX_URL_LENGTH = 2_048;

export interface TargetPolicy {
  allowLoopback: boolean;
  /** CIDR ranges (`10.20.0.0/16`) the operator allows besides public addresses. */
  allowedNetworks: readonly string[];
}

/** Resolves a host name to every address it has (the system resolver, as connections use). */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** Checks a subscription URL when it is saved; the addresses are checked again at delivery. */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  const field = { extensions: { field: 'url' } };
  if (raw.length > MAX_URL_LENGTH)
    throw new AppError('invalid_webhook_url', `url is longer than ${MAX_URL_LENGTH} characters`, field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError(
      'invalid_webhook_url',
      'url is not an absolute URL such as https://soar.example.com/hooks',
      field,
    );
  }
  if (url.username !== '' || url.password !== '')
    throw new AppError(
      'invalid_webhook_url',
      'url must not carry credentials; the signature authenticates deliveries',
      field,
    );
  if (url.hash !== '') throw new AppError('invalid_webhook_url', 'url must not have a #fragment', field);
  const host = bareHost(url.hostname);
  const literal = ipaddr.isValid(host) ? ipaddr.process(host) : undefined;
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  if (url.protocol === 'http:') {
    const loopback = loopbackName || literal?.range() === 'loopback';
    if (!(policy.allowLoopback && loopback))
      throw new AppError(
        'invalid_webhook_url',
        'url must use https (plain http only to a loopback address, when the operator allows it for testing)',
        field,
      );
  } else if (url.protocol !== 'https:') {
    throw new AppError('invalid_webhook_url', 'url must use https', field);
  }
  if (literal) checkAddress(literal.toString(), policy);
  else if (loopbackName && !policy.allowLoopback)
    throw new AppError('webhook_address_refused', `${host} is a loopback name; deliveries may not go there`, field);
  return url;
}

/** Why an address may not be reached, or undefined when it may. */
export function refusal(address: string, policy: TargetPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  for (const cidr of policy.allowedNetworks) {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    if (network.kind() === parsed.kind() && parsed.match(network, bits)) return undefined;
  }
  const what = range === 'linkLocal' ? 'link-local (cloud metadata lives there)' : range;
  return `${parsed.toString()} is a ${what} address; deliveries go to public addresses only unless the operator allows its range`;
}

export function checkAddress(address: string, policy: TargetPolicy): void {
  const why = refusal(address, policy);
  if (why) throw new AppError('webhook_address_refused', why, { extensions: { field: 'url' } });
}

/**
 * The address to connect to for this attempt: the host resolved now, refused if ANY of its
 * addresses is refused (a name pointing at both a public and a private address is refused
 * rather than left to chance), else the first.
 */
export async function pinAddress(url: URL, policy: TargetPolicy, resolve: Resolver): Promise<string> {
  const host = bareHost(url.hostname);
  const addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} resolved to no address`);
  for (const address of addresses) {
    const why = refusal(address, policy);
    if (why) throw new AddressRefused(`${host}: ${why}`);
  }
  const first = addresses[0];
  if (first === undefined) throw new Error(`${host} resolved to no address`);
  return first;
}

export class AddressRefused extends Error {
  override name = 'AddressRefused';
}
