// Records of the families the collector documents, made fresh for each test (unique markers included so
// a test can find exactly its own records).
import { randomUUID } from 'node:crypto';

let counter = 0;

export function webAccessRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    timestamp: new Date(Date.UTC(2026, 10, 22, 10, 0, counter % 60)).toISOString(),
    source: 'nginx',
    remote_addr: `203.0.113.${counter % 250}`,
    remote_user: '-',
    request: `GET /products/${counter}?ref=home HTTP/1.1`,
    status: '200',
    body_bytes_sent: 512 + counter,
    request_time: 0.004,
    http_referer: '-',
    http_user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
    marker: randomUUID(),
    ...overrides,
  };
}

export function syslogRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    timestamp: '2026-11-22T10:00:00+01:00',
    hostname: `web-${counter % 5}`,
    facility: 'auth',
    severity: 'info',
    program: 'sshd',
    message: `Accepted publickey for deploy from 198.51.100.${counter % 250} port 52113 ssh2`,
    marker: randomUUID(),
    ...overrides,
  };
}

export function appRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    level: 'info',
    logger: 'checkout',
    message: `order ${counter} placed`,
    request_id: randomUUID(),
    user_id: `u-${counter}`,
    status: 'ok',
    duration_ms: counter % 100,
    marker: randomUUID(),
    ...overrides,
  };
}

export function ndjson(records: Record<string, unknown>[]): string {
  return records.map((record) => JSON.stringify(record)).join('\n') + '\n';
}
