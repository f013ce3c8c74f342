// The normaliser as the endpoint-format tests use it (sysmon, auditd, osquery, generic): the
// shipped pipeline, and a record wrapped in fixed log metadata with a known event time.
import type { NormalisedEvent } from './event.js';
import { createNormaliser, loadPipeline } from './index.js';

const normaliser = createNormaliser(loadPipeline());

/** The event time every record is stored with; its receive time is half a second later. */
export const EVENT_TIME = Date.parse('2026-11-22T10:15:00Z');

export function normalise(record: Record<string, unknown>): NormalisedEvent {
  return normaliser.normalise({
    seq: 42,
    tenantId: 3,
    receivedAt: EVENT_TIME + 500,
    eventTime: EVENT_TIME,
    record: JSON.stringify(record),
    meta: null,
  });
}
