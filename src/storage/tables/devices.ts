// The device inventory: one row per host seen in a tenant's telemetry, and the addresses it used.
import type { Generated } from 'kysely';

export type Criticality = 'low' | 'medium' | 'high' | 'critical';

export interface DevicesTable {
  seq: Generated<number>;
  id: string;
  tenant_id: number;
  /** The host name lower-cased: what identifies the device within the tenant. */
  host_key: string;
  host_name: string;
  /** Defaults: '' and 'medium'. */
  description: Generated<string>;
  criticality: Generated<Criticality>;
  last_user: string | null;
  endpoint_id: string | null;
  os: string | null;
  kubernetes_namespace: string | null;
  first_seen: number;
  last_seen: number;
  updated_at: number;
  /**
   * Response actions (migration 0032): isolation_requested, isolated, isolation_failed,
   * release_requested, released, release_failed; null: never acted on.
   */
  isolation_state: Generated<string | null>;
}

export interface DeviceAddressesTable {
  device_id: string;
  ip: string;
  tenant_id: number;
  /** `public`, or why it was not looked up: `private`, `loopback`, `link_local`, `reserved`, … */
  scope: string;
  country_code: string | null;
  country: string | null;
  city: string | null;
  first_seen: number;
  last_seen: number;
}
