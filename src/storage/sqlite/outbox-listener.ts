// SQLite's side of the outbox wake-up: only this process writes, and it announces its own
// deliveries in-thread (webhooks/outbox-wake.ts), so there is nobody else to hear.
import type { OutboxListener } from '../../webhooks/outbox-wake.js';

export const sqliteOutboxListener: OutboxListener = () => ({ stop: () => Promise.resolve() });
