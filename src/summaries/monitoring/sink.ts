// The entry point the server uses: createSink() picks the configured sink and isolate() keeps its
// failures away from requests. Sinks live one per file behind the MonitoringSink interface, so adding
// one is a new file and a line in SINKS; the shared types are re-exported so callers need one import.
import { createLocalSink } from './local-sink.js';
import type { MonitoringSettings, MonitoringSink, SinkName } from './monitoring-sink.js';
import { createNoneSink } from './none-sink.js';
import { createOtlpSink } from './otlp-sink.js';

export type {
  FeedbackRecord,
  GenerationRecord,
  MonitoringSettings,
  MonitoringSink,
  SinkName,
} from './monitoring-sink.js';

export type MonitoringFailure = 'generation' | 'feedback' | 'close';

// A total record rather than a switch: the compiler asks for an entry when SinkName grows.
const SINKS: Readonly<Record<SinkName, (settings: MonitoringSettings) => MonitoringSink>> = {
  local: createLocalSink,
  otlp: createOtlpSink,
  none: createNoneSink,
};

export function createSink(settings: MonitoringSettings): MonitoringSink {
  // The settings may come from an untyped source, and SINKS must not answer for 'toString'.
  if (!Object.hasOwn(SINKS, settings.sink)) {
    const known = Object.keys(SINKS).join(', ');
    throw new Error(`unknown monitoring sink ${JSON.stringify(settings.sink)} (one of ${known})`);
  }
  return SINKS[settings.sink](settings);
}

/**
 * Wraps a sink so that its failures never reach the caller: each failure calls onFailure(error) (the
 * server counts them in /metrics and logs them without the payload). The wrapped calls always
 * resolve, so a caller that does not want to wait for the monitoring provider may `void` them.
 */
export function isolate(
  sink: MonitoringSink,
  onFailure: (error: unknown, what: MonitoringFailure) => void,
): MonitoringSink {
  const report = (error: unknown, what: MonitoringFailure): void => {
    try {
      onFailure(error, what);
    } catch {
      // The failure handler failing must not reach the caller either.
    }
  };
  return {
    name: sink.name,
    async recordGeneration(record) {
      try {
        await sink.recordGeneration(record);
      } catch (error) {
        report(error, 'generation');
      }
    },
    async recordFeedback(record) {
      try {
        await sink.recordFeedback(record);
      } catch (error) {
        report(error, 'feedback');
      }
    },
    async close() {
      try {
        await sink.close();
      } catch (error) {
        report(error, 'close');
      }
    },
  };
}
