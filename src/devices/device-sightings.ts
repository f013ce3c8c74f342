// What the telemetry says about devices: every event that names its host is a sighting of that
// device, with what the event adds (endpoint ID, user, OS, the device's own addresses).
// Detection collects the sightings of a chunk, one entry per device, and the device store
// upserts them in the chunk's transaction.
import { isIP } from 'node:net';
import type { NormalisedEvent, FieldValue } from '../telemetry/normalise/event.js';

export interface DeviceSighting {
  tenantId: number;
  hostKey: string;
  hostName: string;
  endpointId: string | null;
  user: string | null;
  os: string | null;
  kubernetesNamespace: string | null;
  firstSeen: number;
  lastSeen: number;
  /** The device's own addresses → the last time each was seen. */
  addresses: Map<string, { firstSeen: number; lastSeen: number }>;
}

/** Fields that hold the device's own address (ECS host.ip, common forwarder names). */
const ADDRESS_FIELDS = ['host.ip', 'host_ip', 'hostip', 'ip_address', 'local_address', 'agent.ip', 'device_ip'];
const USER_FIELDS = ['user.name', 'User', 'user', 'username', 'AUID', 'auid_name'];
const OS_FIELDS = ['os', 'os.name', 'host.os.name', 'host.os.type', 'os.type', 'os_type'];
const ENDPOINT_FIELDS = ['endpoint_id', 'agent.id', 'host.id', 'hostIdentifier'];
const NAMESPACE_FIELDS = ['kubernetes_namespace', 'kubernetes.namespace_name', 'kubernetes.namespace'];
const PRODUCT_OS = new Set(['windows', 'linux', 'macos']);

export function hostKey(host: string): string {
  return host.trim().toLowerCase();
}

/** Longest host name kept; longer values are not host names. */
const MAX_HOST_LENGTH = 253;

function text(value: FieldValue | undefined): string | null {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' || trimmed === '-' ? null : trimmed.slice(0, 256);
  }
  return null;
}

function first(fields: Record<string, FieldValue>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = text(fields[name]);
    if (value !== null) return value;
  }
  return null;
}

function addressesOf(event: NormalisedEvent): string[] {
  const found: string[] = [];
  const add = (value: FieldValue | undefined): void => {
    if (Array.isArray(value)) value.forEach(add);
    else if (typeof value === 'string' && isIP(value) !== 0) found.push(value.toLowerCase());
  };
  for (const name of ADDRESS_FIELDS) add(event.fields[name]);
  const network = event.network;
  if (network)
    add(network.direction === 'inbound' ? (network.destination_ip ?? undefined) : (network.source_ip ?? undefined));
  return found;
}

function osOf(event: NormalisedEvent): string | null {
  const named = first(event.fields, OS_FIELDS);
  if (named !== null) return named.toLowerCase();
  if (event.family !== 'process' && event.family !== 'network') return null;
  for (const source of event.logsources) if (source.product && PRODUCT_OS.has(source.product)) return source.product;
  return null;
}

/**
 * The device an event names, if any. A web-server record's `host` is the virtual host asked for
 * (the sender picks it), not the machine: web records name a device only through an explicit
 * host name field.
 */
export function deviceHostOf(event: NormalisedEvent): string | null {
  const host =
    event.family === 'webserver' ? first(event.fields, ['hostname', 'host.name', 'host.hostname']) : event.host;
  return usableHost(host);
}

/** A host name a device can be keyed by: not empty, not longer than a DNS name. */
export function usableHost(host: string | null | undefined): string | null {
  if (host === null || host === undefined) return null;
  const trimmed = host.trim();
  return trimmed === '' || trimmed.length > MAX_HOST_LENGTH ? null : trimmed;
}

/** Collects the sightings of a chunk of events, one per (tenant, device). */
export class SightingCollector {
  private readonly byDevice = new Map<string, DeviceSighting>();

  add(event: NormalisedEvent): void {
    const host = deviceHostOf(event);
    if (host === null) return;
    const key = hostKey(host);
    const id = `${event.tenantId}\u0000${key}`;
    let sighting = this.byDevice.get(id);
    if (!sighting) {
      sighting = {
        tenantId: event.tenantId,
        hostKey: key,
        hostName: host.trim(),
        endpointId: null,
        user: null,
        os: null,
        kubernetesNamespace: null,
        firstSeen: event.time,
        lastSeen: event.time,
        addresses: new Map(),
      };
      this.byDevice.set(id, sighting);
    }
    const latest = event.time >= sighting.lastSeen;
    sighting.firstSeen = Math.min(sighting.firstSeen, event.time);
    sighting.lastSeen = Math.max(sighting.lastSeen, event.time);
    const row = event.process ?? event.network;
    const endpointId = row?.endpoint_id ?? first(event.fields, ENDPOINT_FIELDS);
    const user = row?.user ?? (event.process || event.network ? first(event.fields, USER_FIELDS) : null);
    const os = osOf(event);
    const namespace = first(event.fields, NAMESPACE_FIELDS);
    // The newest event's values win; older ones only fill gaps.
    if (endpointId && (latest || !sighting.endpointId)) sighting.endpointId = endpointId;
    if (user && (latest || !sighting.user)) sighting.user = user;
    if (os && (latest || !sighting.os)) sighting.os = os;
    if (namespace && (latest || !sighting.kubernetesNamespace)) sighting.kubernetesNamespace = namespace;
    for (const ip of addressesOf(event)) {
      const seen = sighting.addresses.get(ip);
      if (seen) {
        seen.firstSeen = Math.min(seen.firstSeen, event.time);
        seen.lastSeen = Math.max(seen.lastSeen, event.time);
      } else sighting.addresses.set(ip, { firstSeen: event.time, lastSeen: event.time });
    }
  }

  take(): DeviceSighting[] {
    const sightings = [...this.byDevice.values()];
    this.byDevice.clear();
    return sightings;
  }
}
