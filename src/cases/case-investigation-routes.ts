// The investigation reads of one case: its process tree and its timeline of observations and
// evidence. Registered by the case routes, under the same prefix and permission.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { CasesDeps } from './case-context.js';
import { tenantOf } from '../identity/auth.js';
import { CaseParams } from './case-schemas.js';
import { ProcessTreeSchema, TimelineSchema } from './case-investigation-schemas.js';
import { caseProcessTree, caseTimeline, INVESTIGATION_LIMITS } from './case-investigation.js';

const limits = `At most the ${INVESTIGATION_LIMITS.observations} most recent observations and ${INVESTIGATION_LIMITS.recordsPerObservation} triggering records per observation are read.`;

export function investigationRoutes(app: FastifyInstance, deps: CasesDeps): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: { scope: 'tenant', permission: 'cases:read' } } as const;

  routes.get(
    '/cases/:case_id/process-tree',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'Process tree of a case',
        description: `Per device of the case, the processes around its observations, parent → child from the endpoint-process events: the processes the observations' records created (\`observation_ids\` set), their ancestors and their descendants, each with the network connections it made. A process with no creation record of its own in the window is inferred from its children's parent fields or from its connections (\`inferred: true\`). Without any observed process, the device's processes in the window are listed. The window is the case's observations ± ${INVESTIGATION_LIMITS.marginMs / 60_000} minutes; at most ${INVESTIGATION_LIMITS.rowsPerDevice} process and ${INVESTIGATION_LIMITS.rowsPerDevice} connection rows per device are read, ${INVESTIGATION_LIMITS.processesPerDevice} processes shown, ${INVESTIGATION_LIMITS.devices} devices. ${limits}`,
        params: CaseParams,
        response: { 200: ProcessTreeSchema },
      },
    },
    async (request) => caseProcessTree(deps.db, tenantOf(request).id, request.params.case_id),
  );

  routes.get(
    '/cases/:case_id/timeline',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'Timeline of a case',
        description: `The case's observations and their evidence (the process and connection rows of their triggering records) across its devices, oldest first, each evidence row naming the observations it supports. At most ${INVESTIGATION_LIMITS.timelineEntries} entries. ${limits}`,
        params: CaseParams,
        response: { 200: TimelineSchema },
      },
    },
    async (request) => caseTimeline(deps.db, tenantOf(request).id, request.params.case_id),
  );
}
