// Types of the device pages, from the server's own route schemas (type-only imports).
import type { Static } from 'typebox';
import type {
  AddressSchema,
  CriticalitySchema,
  DeviceDetailSchema,
  DeviceSchema,
  PatchDeviceBody,
} from '../../../../src/devices/device-schemas.js';

export type Device = Static<typeof DeviceSchema>;
export type DeviceDetail = Static<typeof DeviceDetailSchema>;
export type Address = Static<typeof AddressSchema>;
export type Process = DeviceDetail['processes'][number];
export type Criticality = Static<typeof CriticalitySchema>;
export type DeviceChanges = Static<typeof PatchDeviceBody>;

export const criticalities = ['low', 'medium', 'high', 'critical'] as const satisfies readonly Criticality[];

/** The GeoIP attribution DB-IP's licence (CC BY 4.0) requires wherever its locations show. */
export const GEOIP_ATTRIBUTION = {
  text: 'IP Geolocation by DB-IP',
  href: 'https://db-ip.com',
  licence: 'CC BY 4.0',
  licenceHref: 'https://creativecommons.org/licenses/by/4.0/',
};
