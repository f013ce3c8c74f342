// The answers Elasticsearch shippers expect beside the bulk API: what they ask at start (cluster
// info, licence, health, templates, lifecycle policies, indices) gets a harmless canned answer
// (docs/collector.md, Elasticsearch bulk), so they start and send without any setup to turn off.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The official clients refuse a server that does not name itself in this header. */
export const ELASTIC_PRODUCT_HEADER = 'x-elastic-product';
/**
 * The version the collector answers as: shippers check it against their own major version, and
 * Beats refuse a cluster older than themselves unless told otherwise.
 */
export const ES_VERSION = '8.19.0';
const BUILD_DATE = '2025-07-21T00:00:00.000Z';

/** `application/vnd.elasticsearch+json; compatible-with=N` when the request asked for it, else JSON. */
export function esContentType(request: FastifyRequest): string {
  const accept = request.headers.accept ?? '';
  const compatible = /application\/vnd\.elasticsearch\+json;\s*compatible-with=(\d+)/i.exec(accept);
  return compatible ? `application/vnd.elasticsearch+json;compatible-with=${compatible[1]}` : 'application/json';
}

/** A stable identifier per tenant, shaped like Elasticsearch's UUIDs. */
function uuidOf(codeName: string, what: string): string {
  return createHash('sha256').update(`${what}:${codeName}`).digest('base64url').slice(0, 22);
}

/** `GET /`: the cluster's name and version (and the client's product check). */
export function clusterInfo(codeName: string) {
  return {
    name: 'sightline',
    cluster_name: `sightline-${codeName}`,
    cluster_uuid: uuidOf(codeName, 'cluster'),
    version: {
      number: ES_VERSION,
      build_flavor: 'default',
      build_type: 'tar',
      build_hash: '0000000000000000000000000000000000000000',
      build_date: BUILD_DATE,
      build_snapshot: false,
      lucene_version: '9.12.2',
      minimum_wire_compatibility_version: '7.17.0',
      minimum_index_compatibility_version: '7.0.0',
    },
    tagline: 'You Know, for Search',
  };
}

const acknowledged = () => ({ acknowledged: true });

/** A canned answer: from the tenant's code name and the path's parameters. */
type Answer = (codeName: string, params: Record<string, string>) => unknown;

/** One canned endpoint: its methods, Fastify path, and answer. */
export interface CannedEndpoint {
  methods: ('GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE')[];
  url: string;
  answer: Answer;
}

const licence: Answer = (codeName) => ({
  license: {
    status: 'active',
    uid: uuidOf(codeName, 'license'),
    type: 'basic',
    issue_date: BUILD_DATE,
    issue_date_in_millis: Date.parse(BUILD_DATE),
    max_nodes: 1000,
    max_resource_units: null,
    issued_to: `sightline-${codeName}`,
    issuer: 'elasticsearch',
    start_date_in_millis: -1,
  },
});

const health: Answer = (codeName) => ({
  cluster_name: `sightline-${codeName}`,
  status: 'green',
  timed_out: false,
  number_of_nodes: 1,
  number_of_data_nodes: 1,
  active_primary_shards: 0,
  active_shards: 0,
  relocating_shards: 0,
  initializing_shards: 0,
  unassigned_shards: 0,
  delayed_unassigned_shards: 0,
  number_of_pending_tasks: 0,
  number_of_in_flight_fetch: 0,
  task_max_waiting_in_queue_millis: 0,
  active_shards_percent_as_number: 100.0,
});

// No node address is given: a client that sniffs would replace the collector address with it.
const nodes: Answer = (codeName) => ({
  _nodes: { total: 1, successful: 1, failed: 0 },
  cluster_name: `sightline-${codeName}`,
  nodes: {},
});

const xpack: Answer = (codeName) => ({
  build: { hash: '0000000000000000000000000000000000000000', date: BUILD_DATE },
  license: { uid: uuidOf(codeName, 'license'), type: 'basic', mode: 'basic', status: 'active' },
  features: {},
  tagline: 'You know, for X',
});

// Templates and policies are reported as present, so shippers neither install nor overwrite them.
const indexTemplate: Answer = (_codeName, { name = '' }) => ({
  index_templates: [{ name, index_template: { index_patterns: [`${name}*`], composed_of: [] } }],
});
const legacyTemplate: Answer = (_codeName, { name = '' }) => ({ [name]: { order: 0, index_patterns: [`${name}*`] } });
const policy: Answer = (_codeName, { name = '' }) => ({
  [name]: { version: 1, modified_date: BUILD_DATE, policy: { phases: {} } },
});
const indexCreated: Answer = (_codeName, { index = '' }) => ({ acknowledged: true, shards_acknowledged: true, index });

/** Every canned endpoint (each GET answers HEAD too); the bulk routes and the 404 for any other path are in bulk-routes.ts. */
export const cannedEndpoints: CannedEndpoint[] = [
  { methods: ['GET'], url: '/', answer: clusterInfo },
  { methods: ['GET'], url: '/_license', answer: licence },
  { methods: ['GET'], url: '/_xpack', answer: xpack },
  { methods: ['GET'], url: '/_cluster/health', answer: health },
  { methods: ['GET'], url: '/_cluster/health/:index', answer: health },
  { methods: ['GET'], url: '/_nodes', answer: nodes },
  { methods: ['GET'], url: '/_nodes/*', answer: nodes },
  { methods: ['GET'], url: '/_index_template/:name', answer: indexTemplate },
  { methods: ['PUT', 'POST'], url: '/_index_template/:name', answer: acknowledged },
  { methods: ['GET'], url: '/_template/:name', answer: legacyTemplate },
  { methods: ['PUT', 'POST'], url: '/_template/:name', answer: acknowledged },
  { methods: ['GET'], url: '/_ilm/policy/:name', answer: policy },
  { methods: ['PUT'], url: '/_ilm/policy/:name', answer: acknowledged },
  { methods: ['GET'], url: '/_alias/:name', answer: acknowledged },
  { methods: ['PUT'], url: '/_data_stream/:name', answer: acknowledged },
  // Any index exists, and creating one is acknowledged: records do not live in indices.
  { methods: ['HEAD'], url: '/:index', answer: acknowledged },
  { methods: ['PUT'], url: '/:index', answer: indexCreated },
];
