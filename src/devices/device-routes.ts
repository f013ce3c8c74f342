// /v1/devices: the device inventory built from telemetry, and the edits tenant admins make.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor } from '../http/schemas.js';
import { parseIsoTime } from '../core/time.js';
import { actorOf } from '../identity/principal.js';
import { DeviceDetailSchema, DeviceSchema, ListDevicesQuery, PatchDeviceBody } from './device-schemas.js';
import { editDevice, getDevice, searchDevices, type DeviceReactions } from './device-service.js';
import { GEOIP_ATTRIBUTION } from './geoip.js';
import { routePlugin } from '../http/route-plugin.js';

const DeviceParams = Type.Object({ device_id: Type.String({ maxLength: 64, description: 'Device id (`dev_…`)' }) });

export const deviceRoutes = routePlugin(function deviceRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; reactions: DeviceReactions },
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/devices',
    {
      config: { access: { scope: 'tenant', permission: 'devices:read' } },
      schema: {
        tags: ['Devices'],
        summary: 'List devices',
        description: `The tenant's devices, built from telemetry (any record naming its host; endpoint events add endpoint ID, user, OS and addresses), most recently seen first. Addresses carry country and city; private and reserved ones are labelled, not looked up. ${GEOIP_ATTRIBUTION}.`,
        querystring: ListDevicesQuery,
        response: {
          200: Type.Object(
            { devices: Type.Array(DeviceSchema), next_cursor: NextCursor },
            { description: 'A page of devices' },
          ),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const after = query.cursor
        ? decodeCursor<{ t: number; s: number }>(query.cursor, { t: 'number', s: 'number' })
        : undefined;
      const page = await searchDevices(
        db,
        tenantOf(request).id,
        {
          ...(query.name !== undefined ? { name: query.name } : {}),
          ...(query.ip !== undefined ? { ip: query.ip } : {}),
          ...(query.seen_since !== undefined ? { seenSince: parseIsoTime('seen_since', query.seen_since) } : {}),
          ...(query.has_open_case !== undefined ? { hasOpenCase: query.has_open_case } : {}),
        },
        { limit: query.limit ?? 50, ...(after ? { after: { lastSeen: after.t, seq: after.s } } : {}) },
      );
      return {
        devices: page.devices,
        next_cursor: page.next ? encodeCursor({ t: page.next.lastSeen, s: page.next.seq }) : null,
      };
    },
  );

  routes.get(
    '/devices/:device_id',
    {
      config: { access: { scope: 'tenant', permission: 'devices:read' } },
      schema: {
        tags: ['Devices'],
        summary: 'Get a device',
        description: `One device with its addresses (country and city), the processes seen on it (name, PID, executable path) and its cases. ${GEOIP_ATTRIBUTION}.`,
        params: DeviceParams,
        response: { 200: DeviceDetailSchema },
      },
    },
    async (request) => getDevice(db, tenantOf(request).id, request.params.device_id),
  );

  routes.patch(
    '/devices/:device_id',
    {
      config: { access: { scope: 'tenant', permission: 'devices:write' } },
      schema: {
        tags: ['Devices'],
        summary: 'Edit a device',
        description:
          "Sets the host description and the criticality (tenant admins: devices:write). A criticality change rescores the device's open cases. Audited as `device.updated` with what changed, from and to.",
        params: DeviceParams,
        body: PatchDeviceBody,
        response: { 200: DeviceSchema },
      },
    },
    async (request) =>
      editDevice(
        {
          db,
          tenantId: tenantOf(request).id,
          actor: actorOf(principalOf(request)),
          ip: request.ip,
          reactions: deps.reactions,
        },
        request.params.device_id,
        request.body,
      ),
  );
});
