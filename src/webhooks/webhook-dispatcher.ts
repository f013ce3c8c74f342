// Delivers the outbox: claims due deliveries (a lease, so several processes on one database
// share the work and each delivery has one sender at a time), sends each as a signed CloudEvent,
// and records the attempt. A failure is retried with exponential backoff and jitter until the
// retry window closes; a subscription that has failed for the whole window without a success is
// turned off and says why. A process that dies mid-attempt leaves its lease to run out, and the
// delivery is claimed again: at least once, with the event id for receivers to de-duplicate.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { RowLocks } from '../storage/row-locks.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { errorMessage } from '../core/errors.js';
import { BackgroundLoop, backoffMs } from '../core/background-loop.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import type { Sealer } from '../identity/sso/sso-seal.js';
import {
  anyDue,
  claimDue,
  finishAttempt,
  findSubscription,
  updateSubscription,
  type ClaimedDelivery,
} from './webhook-store.js';
import { cloudEvent } from './webhook-events.js';
import { ocsfFinding } from './ocsf-findings.js';
import { signatureHeaders } from './webhook-signature.js';
import { AddressRefused, pinAddress, systemResolver, type Resolver, type TargetPolicy } from './webhook-target.js';
import { sendAttempt, type AttemptResult } from './webhook-sender.js';
import { secretContext } from './webhook-secrets.js';

const MAX_BACKOFF_MS = 3_600_000;
const BATCH = 16;
const POLL_MS = 1_000;
/** The longest wait after the dispatcher itself failed, before it looks again. */
const MAX_LOOP_BACKOFF_MS = 30_000;

export interface DispatcherOptions {
  db: Kysely<Tables>;
  /** Claims due deliveries, skipping those another dispatcher holds. */
  locks: RowLocks;
  sealer: Sealer;
  policy: TargetPolicy;
  timeoutMs: number;
  retryBaseMs: number;
  retryWindowMs: number;
  /** PEM file of extra trusted CAs; empty: Node's bundled roots only. */
  caFile: string;
  resolver?: Resolver;
  pollMs?: number;
  /** Told about failures of the dispatcher itself (not of receivers, which the delivery log keeps). */
  onError(error: unknown): void;
}

/** The wait before retry number `attempt` (1 = the first retry): doubling, capped, half of it random. */
export function backoff(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const full = backoffMs(attempt, baseMs, MAX_BACKOFF_MS);
  return Math.round(full / 2 + random() * (full / 2));
}

export class WebhookDispatcher {
  readonly owner = `dispatcher-${crypto.randomUUID()}`;
  private readonly extraCa: string | undefined;
  private readonly loop: BackgroundLoop;

  constructor(private readonly options: DispatcherOptions) {
    this.extraCa = options.caFile === '' ? undefined : fs.readFileSync(options.caFile, 'utf8');
    const pollMs = options.pollMs ?? POLL_MS;
    this.loop = new BackgroundLoop({
      // Deliveries were due, so more may be (a batch holds at most BATCH): it looks again at once.
      run: async () => ((await this.runOnce()) > 0 ? 0 : undefined),
      idleMs: pollMs,
      // The dispatcher's own failures (its database) are retried, and logged, ever more rarely.
      backoff: { baseMs: pollMs, maxMs: Math.max(pollMs, MAX_LOOP_BACKOFF_MS) },
      onError: (error) => options.onError(error),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Something was emitted in this process: look now rather than at the next poll. */
  poke(): void {
    this.loop.poke();
  }

  /** Waits for the batch under way. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Claims and sends one batch of due deliveries; how many it attempted. */
  async runOnce(now = Date.now()): Promise<number> {
    const { db, locks } = this.options;
    const leaseUntil = now + this.options.timeoutMs + 30_000;
    if (!(await anyDue(db, now))) return 0;
    const claimed = await writeTransaction(db, (trx) =>
      claimDue(trx, locks, { owner: this.owner, now, leaseUntil, limit: BATCH }),
    );
    await Promise.all(claimed.map((item) => this.deliver(item)));
    return claimed.length;
  }

  private async deliver(item: ClaimedDelivery): Promise<void> {
    const { event, subscription } = item;
    const finding = subscription.format === 'ocsf' ? ocsfFinding(event, item.codeName) : undefined;
    const body = finding ? JSON.stringify(finding) : cloudEvent(event, item.codeName);
    const contentType = finding ? 'application/json; charset=utf-8' : 'application/cloudevents+json; charset=utf-8';
    let result: AttemptResult;
    const secret = this.options.sealer.open(subscription.secret_sealed, secretContext(subscription));
    if (secret === undefined) {
      result = { latencyMs: 0, error: 'the signing secret could not be opened' };
    } else {
      try {
        const url = new URL(subscription.url);
        const address = await pinAddress(url, this.options.policy, this.options.resolver ?? systemResolver);
        const headers = {
          'content-type': contentType,
          'user-agent': 'Sightline-Webhooks/1',
          ...signatureHeaders(secret, event.id, body, Date.now()),
        };
        result = await sendAttempt(url, address, body, headers, {
          timeoutMs: this.options.timeoutMs,
          ...(this.extraCa ? { extraCa: this.extraCa } : {}),
        });
      } catch (error) {
        if (!(error instanceof AddressRefused) && !(error instanceof Error)) throw error;
        result = { latencyMs: 0, error: `not sent: ${errorMessage(error)}` };
      }
    }
    await this.record(item, result, Date.now());
  }

  private async record(item: ClaimedDelivery, result: AttemptResult, now: number) {
    const { db, retryBaseMs, retryWindowMs } = this.options;
    const { delivery } = item;
    const attempts = delivery.attempts + 1;
    const attempt = {
      attempts,
      last_attempt_at: now,
      response_status: result.status ?? null,
      latency_ms: result.latencyMs,
      last_error: result.error ? result.error.slice(0, 500) : null,
    };
    await writeTransaction(db, async (trx) => {
      const tenantId = delivery.tenant_id;
      const subscription = await findSubscription(trx, tenantId, delivery.subscription_id);
      if (result.error === undefined) {
        if (
          !(await finishAttempt(trx, delivery.id, this.owner, { ...attempt, status: 'delivered', delivered_at: now }))
        )
          return;
        if (subscription?.failing_since !== null)
          await updateSubscription(trx, tenantId, delivery.subscription_id, { failing_since: null });
        return;
      }
      // Retried until the window closes, the last attempt at its end; then given up.
      const deadline = delivery.retry_until ?? delivery.created_at + retryWindowMs;
      const givenUp = now >= deadline;
      const set = givenUp
        ? { status: 'failed' as const }
        : { status: 'pending' as const, next_attempt_at: Math.min(now + backoff(attempts, retryBaseMs), deadline) };
      if (!(await finishAttempt(trx, delivery.id, this.owner, { ...attempt, ...set }))) return;
      if (!subscription) return;
      const failingSince = subscription.failing_since ?? now;
      // Failing for the whole window: a delivery ran out of it without a success in between, or
      // attempts have failed for that long.
      if (subscription.enabled === 1 && (givenUp || now - failingSince >= retryWindowMs)) {
        await updateSubscription(trx, tenantId, subscription.id, {
          enabled: 0,
          disabled_reason: 'failing',
          disabled_at: now,
          failing_since: failingSince,
          updated_at: now,
        });
        await recordAudit(trx, {
          tenantId,
          action: 'webhook.disabled',
          actor: { type: 'system', id: null, label: 'webhook dispatcher' },
          target: { type: 'webhook', id: subscription.id },
          details: {
            reason: 'failing',
            failing_since: new Date(failingSince).toISOString(),
            last_error: attempt.last_error,
          },
        });
      } else if (subscription.failing_since === null) {
        await updateSubscription(trx, tenantId, subscription.id, { failing_since: now });
      }
    });
  }
}
