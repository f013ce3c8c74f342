// Senders for the scale-out fault tests, and what they check afterwards. A sender behaves as a log
// forwarder: each request has a fresh Idempotency-Key, and one refused (5xx) or unanswered within
// a short time is resent with the same key to the next collector until it is acknowledged. The
// ledger keeps every record acknowledged (answered 201: durable in JetStream), which must then be
// stored exactly once, and each record has an id of its own (`scale_id`) to count it by.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendRequest, storedRecords } from './scale.js';

/** How long one attempt waits for its answer before the sender resends the request elsewhere. */
const ATTEMPT_TIMEOUT_MS = 3_000;

export interface Flow {
  /** Stops the senders after their request in flight (acknowledged or given up). */
  stop(): Promise<void>;
}

export class Ledger {
  /** Ids of the records acknowledged. */
  readonly acked = new Set<string>();
  /** Refused or unanswered attempts, by status (0: no answer in time). */
  readonly refused = new Map<number, number>();
  /** Requests acknowledged only after a resend; of those, the ones an earlier attempt had stored. */
  resent = 0;
  replayed = 0;
  private next = 0;
  private closed = false;
  private readonly flows = new Set<Flow>();

  constructor(private readonly ports: () => number[]) {}

  /**
   * One request of `count` records for the tenant, first to collector `start`, resent until
   * acknowledged or `deadlineMs` has passed; whether it was acknowledged.
   */
  async send(tenant: string, count: number, start = 0, deadlineMs = 90_000): Promise<boolean> {
    const ids = Array.from({ length: count }, () => `r${(this.next += 1)}`);
    const lines = ids.map((id) => JSON.stringify({ message: `fault test record ${id}`, scale_id: id }));
    const key = randomUUID();
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0, target = start; !this.closed && Date.now() < deadline; attempt += 1, target += 1) {
      const ports = this.ports();
      const answer = await sendRequest(ports[target % ports.length] ?? 0, tenant, lines, key, ATTEMPT_TIMEOUT_MS);
      if (answer.status === 201) {
        for (const id of ids) this.acked.add(id);
        if (attempt > 0) this.resent += 1;
        if (answer.replayed) this.replayed += 1;
        return true;
      }
      if (answer.status >= 400 && answer.status < 500)
        throw new Error(`a collector refused the request for good (${answer.status}): ${answer.body}`);
      this.refused.set(answer.status, (this.refused.get(answer.status) ?? 0) + 1);
      await sleep(Math.min(100 * 2 ** attempt, 2_000));
    }
    return false;
  }

  /**
   * One sender per tenant, each sending requests of a few records one after another until
   * stopped; each request first to collector `start`, or spread over the collectors.
   */
  flow(tenants: string[], { start, paceMs = 50 }: { start?: number; paceMs?: number } = {}): Flow {
    let stopped = false;
    const senders = tenants.map(async (tenant, i) => {
      while (!stopped && !this.closed) {
        await this.send(tenant, 1 + (i % 3), start ?? i);
        await sleep(paceMs);
      }
    });
    const flow: Flow = {
      stop: async () => {
        stopped = true;
        await Promise.all(senders);
        this.flows.delete(flow);
      },
    };
    this.flows.add(flow);
    return flow;
  }

  /** Stops every flow still running: one a failed test left behind would run into the next. */
  async stopFlows(): Promise<void> {
    await Promise.all([...this.flows].map((flow) => flow.stop()));
  }

  /** Stops every sender, a request being resent included. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stopFlows();
  }

  /** What the senders went through, for the test's diagnostics. */
  summary(): string {
    return (
      `${this.acked.size} records acknowledged; refused attempts by status ${JSON.stringify([...this.refused])}; ` +
      `${this.resent} requests acknowledged after a resend, ${this.replayed} of them stored by an earlier attempt`
    );
  }

  /**
   * Waits until every record acknowledged so far is stored, checking that none is stored twice
   * and nothing is stored that was not sent; `report` explains a failure.
   */
  async expectStoredOnce(databaseUrl: string, report: () => Promise<string>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const acked = [...this.acked];
    for (;;) {
      const stored = (await storedRecords(databaseUrl)).map((row) => row.id);
      const counts = new Map<string, number>();
      for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
      const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
      assert.deepEqual(twice.slice(0, 10), [], `no record is stored twice (${twice.length} are)`);
      const unknown = [...counts.keys()].filter((id) => !/^r\d+$/.test(id) || Number(id.slice(1)) > this.next);
      assert.deepEqual(unknown.slice(0, 10), [], 'only records sent are stored');
      const missing = acked.filter((id) => !counts.has(id));
      if (missing.length === 0) return;
      if (Date.now() > deadline)
        assert.fail(
          `${missing.length} of ${acked.length} acknowledged records not stored (${missing.slice(0, 5).join(', ')})\n${await report()}`,
        );
      await sleep(500);
    }
  }
}

/** Polls `condition` until it holds; fails naming `what` (and the report) after the timeout. */
export async function until(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  report: () => Promise<string> | string = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      assert.fail(`timed out after ${timeoutMs / 1000} s waiting until ${what}\n${await report()}`);
    await sleep(200);
  }
}
