// Prometheus metrics of one server instance (its own registry, so tests can run several).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds until a record is seen (detected, searchable): the targets are 2 s and 5 s. */
const TIME_TO_SEE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'sightline_http_requests_total',
    help: 'HTTP requests answered, by route and status code.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  readonly collectorRecords = new Counter({
    name: 'sightline_collector_records_total',
    help: 'Records accepted and committed by the collector.',
    registers: [this.registry],
  });

  readonly collectorBytes = new Counter({
    name: 'sightline_collector_bytes_total',
    help: 'Collector request body bytes accepted, as sent (wire) and after decompression (decoded).',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly collectorRejects = new Counter({
    name: 'sightline_collector_rejects_total',
    help: 'Collector requests rejected, by problem code.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly collectorRateLimitedRecords = new Counter({
    name: 'sightline_collector_rate_limited_records_total',
    help: 'Records refused because their tenant was over its ingest limits (429 or 413; a request refused before its body was read counts in the requests total only), by tenant code name.',
    labelNames: ['tenant'] as const,
    registers: [this.registry],
  });

  readonly collectorRateLimitedRequests = new Counter({
    name: 'sightline_collector_rate_limited_requests_total',
    help: 'Collector requests refused because their tenant was over its ingest limits, by tenant code name.',
    labelNames: ['tenant'] as const,
    registers: [this.registry],
  });

  readonly collectorNodes = new Gauge({
    name: 'sightline_collector_nodes',
    help: "Collector nodes sharing the database that this node counts as live: it accepts each tenant's ingest rates divided by this number.",
    registers: [this.registry],
  });

  readonly clientErrors = new Counter({
    name: 'sightline_http_client_errors_total',
    help: 'Requests the HTTP parser refused before routing (malformed framing, oversized headers, timeouts), by problem code.',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly commitSeconds = new Histogram({
    name: 'sightline_record_log_commit_seconds',
    help: 'Time to commit one group of batches to the record log (includes fsync).',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly commitRecords = new Histogram({
    name: 'sightline_record_log_commit_records',
    help: 'Records per group commit.',
    buckets: [1, 10, 100, 1000, 5000, 10000, 50000],
    registers: [this.registry],
  });

  readonly queueBytes = new Gauge({
    name: 'sightline_record_log_queue_bytes',
    help: 'Record bytes accepted but not yet committed.',
    registers: [this.registry],
  });

  readonly collectorBodyBytes = new Gauge({
    name: 'sightline_collector_body_bytes',
    help: 'Collector request body bytes being read and parsed now (held against --max-inflight-bytes).',
    registers: [this.registry],
  });

  readonly searchIndexLag = new Gauge({
    name: 'sightline_search_index_lag_records',
    help: 'Records in the log not yet in the full-text index (the indexer follows the log).',
    registers: [this.registry],
  });

  readonly timeToDetect = new Histogram({
    name: 'sightline_time_to_detect_seconds',
    help: 'For each observation detection made: seconds from the collector accepting its newest triggering record to the observation being committed.',
    buckets: TIME_TO_SEE_BUCKETS,
    registers: [this.registry],
  });

  readonly detectionDelay = new Histogram({
    name: 'sightline_detection_delay_seconds',
    help: 'For each committed detection batch: seconds from the collector accepting its oldest record to the commit (how far behind detection runs, in time).',
    buckets: TIME_TO_SEE_BUCKETS,
    registers: [this.registry],
  });

  readonly searchIndexDelay = new Histogram({
    name: 'sightline_search_index_delay_seconds',
    help: 'Sampled every second: the age of the oldest record not yet in the full-text index (0 when it holds every record), which a text search cannot find yet.',
    buckets: [0, ...TIME_TO_SEE_BUCKETS],
    registers: [this.registry],
  });

  readonly detectionLag = new Gauge({
    name: 'sightline_detection_lag_records',
    help: 'Records in the log the detection thread has not processed yet (0 in the scale-out mode: see sightline_queue_consumer_lag_messages).',
    registers: [this.registry],
  });

  readonly detectionRecords = new Counter({
    name: 'sightline_detection_records_total',
    help: 'Records detection has processed (normalised and matched against the rules).',
    registers: [this.registry],
  });

  readonly detectionFailures = new Counter({
    name: 'sightline_detection_record_failures_total',
    help: 'Records detection could not normalise or evaluate (logged by record id; detection went on).',
    registers: [this.registry],
  });

  readonly observationsCreated = new Counter({
    name: 'sightline_observations_created_total',
    help: 'Observations detection created.',
    registers: [this.registry],
  });

  readonly authFailures = new Counter({
    name: 'sightline_auth_failures_total',
    help: 'API authentication failures, by problem code.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly summariesGenerated = new Counter({
    name: 'sightline_summaries_generated_total',
    help: 'AI case summaries generated, by provider and whether the cache answered.',
    labelNames: ['provider', 'cached'] as const,
    registers: [this.registry],
  });

  readonly summaryProviderFailures = new Counter({
    name: 'sightline_summary_provider_failures_total',
    help: 'Summary provider calls that failed after their retries, by provider and kind (timeout, error).',
    labelNames: ['provider', 'kind'] as const,
    registers: [this.registry],
  });

  readonly summaryMonitoringFailures = new Counter({
    name: 'sightline_summary_monitoring_failures_total',
    help: 'Copies the monitoring sink failed to take (generation or feedback); the user request still succeeded.',
    labelNames: ['sink', 'what'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sightline_' });
  }
}
