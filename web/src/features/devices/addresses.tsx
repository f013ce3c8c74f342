// How a device address reads: the IP with its city and country when located, else why not
// (private, loopback…), as the API's `scope` says.
import { humanize } from '../../lib/format';
import type { Address } from './types';

/** "London, GB" / "United Kingdom" / "Private" / "Not in the database". */
export function placeOf(address: Address): string {
  if (address.scope !== 'public') return humanize(address.scope.replace(/_/g, ' '));
  const place = [address.city, address.country_code ?? address.country].filter(Boolean).join(', ');
  return place || 'Not located';
}

export function AddressLabel({ address }: { address: Address }) {
  const located = address.scope === 'public' && (Boolean(address.city) || Boolean(address.country));
  return (
    <span
      className="address"
      title={
        located
          ? `${address.city ?? ''}${address.city ? ', ' : ''}${address.country ?? ''}`
          : `Not looked up: ${address.scope} address`
      }
    >
      <span className="mono">{address.ip}</span>{' '}
      <span className={located ? 'address-place' : 'address-scope'}>{placeOf(address)}</span>
    </span>
  );
}

/** The first addresses of a device (public ones first) and how many more. */
export function AddressList({ addresses, max = 2 }: { addresses: Address[]; max?: number }) {
  if (addresses.length === 0) return <span className="faint">—</span>;
  const ordered = [...addresses].sort(
    (a, b) => Number(b.scope === 'public') - Number(a.scope === 'public') || b.last_seen.localeCompare(a.last_seen),
  );
  return (
    <span className="address-list">
      {ordered.slice(0, max).map((address) => (
        <AddressLabel key={address.ip} address={address} />
      ))}
      {ordered.length > max && <span className="faint">+{ordered.length - max} more</span>}
    </span>
  );
}
