// The cidr modifier: whether an event's address lies in one of the rule's IPv4 or IPv6 networks.
// Node's BlockList decides, as it always has, and is the reference; an IPv4 text (nearly every
// address in the logs) is instead compared as a number against each network's IPv4 range,
// which gives BlockList's answer without the native SocketAddress it builds per check.
import net from 'node:net';
import type { CompiledItem } from './item.js';
import { ModifierError } from './item.js';
import { fieldKey, type EventView } from './event-view.js';

const IPV4_SPACE = 2 ** 32;

/** A dotted-quad IPv4 address as net.isIP accepts it (no leading zeros), as a number; else undefined. */
export function ipv4Number(text: string): number | undefined {
  let value = 0;
  let octets = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 46;
    if (code === 46) {
      const length = i - start;
      if (length === 0 || length > 3 || octets === 4) return undefined;
      if (length > 1 && text.charCodeAt(start) === 48) return undefined;
      const octet = Number(text.slice(start, i));
      if (octet > 255) return undefined;
      value = value * 256 + octet;
      octets++;
      start = i + 1;
    } else if (code < 48 || code > 57) return undefined;
  }
  return octets === 4 ? value : undefined;
}

/** The 128 bits of an IPv6 address net.isIP accepts (zone dropped); undefined if it cannot tell. */
export function ipv6Bits(address: string): bigint | undefined {
  let text = address.split('%')[0] ?? '';
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4Number(tail);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${Math.floor(v4 / 65_536).toString(16)}:${(v4 % 65_536).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 ? (halves[1] ? halves[1].split(':') : []) : undefined;
  const groups =
    rest === undefined ? head : [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  if (groups.length !== 8 || groups.some((group) => !/^[0-9a-fA-F]{1,4}$/.test(group))) return undefined;
  let bits = 0n;
  for (const group of groups) bits = (bits << 16n) | BigInt(parseInt(group, 16));
  return bits;
}

interface Network {
  list: net.BlockList;
  /** The IPv4 addresses (as numbers) in the network: [low, high); empty when low ≥ high. */
  low: number;
  high: number;
  /** False when the IPv4 range could not be worked out: IPv4 texts then go to the BlockList. */
  exact: boolean;
}

/**
 * The IPv4 range BlockList puts in a network: an IPv4 network's own addresses, and for an IPv6
 * network the IPv4 addresses whose mapped form (::ffff:a.b.c.d) it holds.
 */
function ipv4Range(address: string, family: number, prefix: number): Pick<Network, 'low' | 'high' | 'exact'> {
  if (family === 4) {
    const base = ipv4Number(address);
    if (base === undefined) return { low: 0, high: 0, exact: false };
    const size = 2 ** (32 - prefix);
    const low = base - (base % size);
    return { low, high: low + size, exact: true };
  }
  const bits = ipv6Bits(address);
  if (bits === undefined) return { low: 0, high: 0, exact: false };
  const mapped = 0xffffn << 32n;
  if (prefix <= 96) {
    const shift = BigInt(128 - prefix);
    return bits >> shift === mapped >> shift
      ? { low: 0, high: IPV4_SPACE, exact: true }
      : { low: 0, high: 0, exact: true };
  }
  if (bits >> 32n !== 0xffffn) return { low: 0, high: 0, exact: true };
  const base = Number(bits & 0xffffffffn);
  const size = 2 ** (128 - prefix);
  const low = base - (base % size);
  return { low, high: low + size, exact: true };
}

function network(value: unknown, key: string): Network {
  const list = new net.BlockList();
  const [address = '', bits, extra] = String(value).split('/');
  const family = net.isIP(address);
  const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
  if (
    family === 0 ||
    extra !== undefined ||
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > (family === 6 ? 128 : 32)
  ) {
    throw new ModifierError("modifier 'cidr'", `'${key}': ${JSON.stringify(value)} is not an IPv4 or IPv6 network`);
  }
  list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  return { list, ...ipv4Range(address, family, prefix) };
}

/** Whether the address text lies in the network; `v4` is ipv4Number(text), computed once per text. */
function contains(network: Network, text: string, v4: number | undefined): boolean {
  if (v4 !== undefined && network.exact) return v4 >= network.low && v4 < network.high;
  const family = v4 !== undefined ? 4 : net.isIP(text);
  return family !== 0 && network.list.check(text, family === 6 ? 'ipv6' : 'ipv4');
}

export function cidrItem(field: string, values: unknown[], key: string, all: boolean): CompiledItem {
  const networks = values.map((value) => network(value, key));
  const anyText = (network: Network, texts: readonly string[], numbers: readonly (number | undefined)[]) => {
    for (let i = 0; i < texts.length; i++) if (contains(network, texts[i] ?? '', numbers[i])) return true;
    return false;
  };
  const ref = fieldKey(field);
  return {
    match: (view: EventView) => {
      const texts = view.texts(ref);
      if (texts === null) return false;
      const numbers = texts.map(ipv4Number);
      if (all) {
        for (const entry of networks) if (!anyText(entry, texts, numbers)) return false;
        return true;
      }
      for (const entry of networks) if (anyText(entry, texts, numbers)) return true;
      return false;
    },
    requirement: null,
    fields: [],
  };
}
