// The shared set-up of the cases API suites: a server on one database target, a platform operator,
// a tenant approved to write observations with an admin token, and small helpers that write
// observations at fixed times and read cases back, asserting each answer's status.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { closeOpened } from './suite.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';
import { startServer, type TestServer } from './server.js';
import {
  apiClient,
  bearer,
  issueToken,
  seedTenant,
  signIn,
  problemBody,
  type ApiClient,
  type ApiResponse,
  type Problem,
  type Session,
} from './api.js';
import type { CaseDetail, CaseSearch } from './responses.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { CaseView, presentComment } from '../../src/cases/case-service.js';
import type { ObservationView } from '../../src/observations/observation-service.js';

export type CommentView = ReturnType<typeof presentComment>;
export interface HistoryView {
  at: string;
  actor: { type: string; id: string | null; label: string };
  action: string;
  changes: Record<string, unknown>;
}
export type Level = 'informational' | 'low' | 'medium' | 'high' | 'critical';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
/** The time `hours` after the suites' fixed origin. */
export const at = (hours: number) => new Date(T0 + hours * 3_600_000).toISOString();
export const idsOf = (items: readonly { id: string }[]) => items.map((item) => item.id).sort();

export interface Observed {
  host?: string;
  rule_id?: string;
  level?: Level;
  techniques?: string[];
  /** first_time, in hours after the origin. */
  hours?: number;
}

export interface CaseApiFixture {
  /** Set once the suite's `before` hook ran. */
  readonly server: TestServer;
  readonly acmeTenant: Tenant;
  readonly acme: ApiClient;
  writerFor: (codeName: string) => Promise<{ tenant: Tenant; client: ApiClient }>;
  observe: (client: ApiClient, input?: Observed) => Promise<ObservationView>;
  caseFor: (client: ApiClient, text: string) => Promise<CaseView>;
  detail: (client: ApiClient, ref: string | number) => Promise<CaseDetail>;
  history: (client: ApiClient, ref: string | number) => Promise<HistoryView[]>;
  patch: (
    client: ApiClient,
    item: { id: string; version: number },
    changes: Record<string, unknown>,
  ) => Promise<ApiResponse<CaseView>>;
  problem: (response: ApiResponse, status: number, code: string) => Problem;
}

/** Registers the suite's before/after hooks (call inside `describe`) and returns its helpers. */
export function useCaseApi(target: DatabaseTarget): CaseApiFixture {
  let database: TestDatabase | undefined;
  let server: TestServer | undefined;
  let operator: Session | undefined;
  let acme: { tenant: Tenant; client: ApiClient } | undefined;
  let sequence = 0;
  const ready = <T>(value: T | undefined): T => {
    assert.ok(value !== undefined, 'the suite has started');
    return value;
  };

  /** A tenant approved to write observations, and an admin token (every permission) for it. */
  async function writerFor(codeName: string): Promise<{ tenant: Tenant; client: ApiClient }> {
    const running = ready(server);
    const signedIn = ready(operator);
    const tenant = await seedTenant(running, codeName);
    const approved = await signedIn.client.patch(
      `/v1/tenants/${codeName}`,
      { observation_write_approved: true },
      { 'sightline-tenant': codeName, 'x-csrf-token': signedIn.csrf },
    );
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const client = apiClient(
      running,
      bearer((await issueToken(running, tenant, allPermissions, { name: `${codeName} admin` })).value),
    );
    return { tenant, client };
  }

  before(async () => {
    database = await target.create();
    server = await startServer(database);
    operator = await signIn(server, {
      tenant: null,
      role: 'operator',
      email: `operator-${target.kind}@platform.example`,
    });
    acme = await writerFor('acme');
  });
  after(() => closeOpened(server, database));

  return {
    get server() {
      return ready(server);
    },
    get acmeTenant() {
      return ready(acme).tenant;
    },
    get acme() {
      return ready(acme).client;
    },
    writerFor,
    observe: async (client, input = {}) => {
      sequence++;
      const response = await client.post<ObservationView>('/v1/observations', {
        external_id: `ext-${sequence}`,
        title: `Detection number ${sequence}`,
        level: input.level ?? 'high',
        techniques: input.techniques ?? ['T1059'],
        first_time: at(input.hours ?? 0),
        ...(input.host !== undefined ? { host: input.host } : {}),
        ...(input.rule_id !== undefined ? { rule_id: input.rule_id } : {}),
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body;
    },
    /** The one case whose search text holds `text` (a host name used by one test only). */
    caseFor: async (client, text) => {
      const found = await client.post<CaseSearch>('/v1/cases', { text });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.equal(found.body.total, 1, `one case mentions ${text}: ${JSON.stringify(found.body.cases)}`);
      return found.body.cases[0]!;
    },
    detail: async (client, ref) => {
      const response = await client.get<CaseDetail>(`/v1/cases/${ref}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    },
    history: async (client, ref) => {
      const response = await client.get<{ history: HistoryView[] }>(`/v1/cases/${ref}/history?limit=500`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.history;
    },
    patch: (client, item, changes) =>
      client.patch<CaseView>(`/v1/cases/${item.id}`, { version: item.version, ...changes }),
    /** Asserts the status and the problem's code; returns the problem. */
    problem: (response, status, code) => {
      assert.equal(response.status, status, JSON.stringify(response.body));
      const body = problemBody(response);
      assert.equal(body.code, code);
      return body;
    },
  };
}
