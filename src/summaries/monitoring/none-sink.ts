// The sink for deployments that keep no monitoring copy: every record is accepted and dropped, so
// callers record unconditionally rather than asking whether monitoring is on.
import type { MonitoringSink } from './monitoring-sink.js';

export function createNoneSink(): MonitoringSink {
  return {
    name: 'none',
    recordGeneration: () => Promise.resolve(),
    recordFeedback: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
