// Runs the SLA watcher (cases/work/sla-watcher.ts) in every server: every 15 seconds it marks the
// case clocks that ran out, once each, which sends `case.sla_breached` to webhooks.
import { errorMessage } from '../core/errors.js';
import type { BackgroundLoop } from '../core/background-loop.js';
import { slaWatcher } from '../cases/work/sla-watcher.js';
import type { Module } from './supervisor.js';
import type { Wiring } from './wiring.js';

export const SLA_WATCH_MS = 15_000;

export function slaWatcherModule(w: Wiring): Module {
  let loop: BackgroundLoop | undefined;
  return {
    name: 'sla_watcher',
    start: () => {
      loop = slaWatcher(w.database.db, SLA_WATCH_MS, (error) =>
        w.log?.warn({ error: errorMessage(error) }, 'SLA watch pass failed; the next pass retries'),
      );
      loop.start(SLA_WATCH_MS);
    },
    stop: () => loop?.stop(),
  };
}
