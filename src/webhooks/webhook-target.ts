// Where deliveries may go (docs/webhooks.md, Addresses): https URLs only, plain http only to a
// loopback address when the operator allows loopback for testing; and, checked again on every
// attempt against the addresses the name resolves to then, only what the server's outbound
// address policy allows (http/outbound-address.ts, shared with single sign-on): public unicast
// addresses, and the ranges the operator allow-listed. The sender then connects to the address
// that was checked, so a second DNS answer cannot redirect it (DNS rebinding).
import ipaddr from 'ipaddr.js';
import { AppError } from '../core/errors.js';
import { bareHost, isLoopbackName, refusal, type OutboundPolicy } from '../http/outbound-address.js';

export { AddressRefused, pinAddress, refusal, systemResolver, type Resolver } from '../http/outbound-address.js';

/** Where deliveries may go: the server's outbound policy, from the webhook settings. */
export type TargetPolicy = OutboundPolicy;

export const MAX_URL_LENGTH = 2_048;

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
  const loopbackName = isLoopbackName(host);
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

export function checkAddress(address: string, policy: TargetPolicy): void {
  const why = refusal(address, policy);
  if (why) throw new AppError('webhook_address_refused', why, { extensions: { field: 'url' } });
}
