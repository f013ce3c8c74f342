// The connection to the NATS JetStream cluster that holds the record log in the scale-out mode.
// It never gives up: the first connection and every reconnection retry with backoff, the state
// and its reason are kept for /readyz and the log, and the stream is checked (or created) each
// time the connection comes up. Credentials never reach the log.
import fs from 'node:fs';
import {
  connect,
  credsAuthenticator,
  tokenAuthenticator,
  type Authenticator,
  type NatsConnection,
} from '@nats-io/transport-node';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { ConfigError } from '../config/config.js';
import { streamPartitionSubjects } from './jetstream-codec.js';
import { backoffMs as doublingBackoffMs } from '../core/background-loop.js';

export interface QueueSettings {
  urls: string[];
  credentialsFile: string;
  token: string;
  tlsCaFile: string;
  stream: string;
  partitions: number;
  /** 0: 3 when three or more servers are listed, else 1. */
  replicas: number;
}

export interface QueueLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The stream exists with another stream partition count: no node may use it until the settings agree. */
export class StreamPartitionMismatch extends ConfigError {
  override name = 'StreamPartitionMismatch';
}

/** How long retry number `attempt` (0: the first) waits: doubling from half a second, capped at ten. */
export function backoffMs(attempt: number): number {
  return doublingBackoffMs(attempt + 1, 500, 10_000);
}

const DUPLICATE_WINDOW_NS = 120_000_000_000;

/** Servers as they may be logged: no user information. */
export function describeServers(urls: string[]): string {
  return urls.map((url) => new URL(url).host).join(',');
}

export class JetStreamLink {
  private connection: NatsConnection | undefined;
  private client: JetStreamClient | undefined;
  private manager: JetStreamManager | undefined;
  private streamReady = false;
  private problem = 'connecting';
  private stopped = false;
  private readonly readyWaiters: (() => void)[] = [];
  /** Set when the stream cannot be used whatever happens (a stream partition count mismatch): start fails. */
  fatal: Error | undefined;

  constructor(
    readonly settings: QueueSettings,
    private readonly log: QueueLog,
  ) {}

  get replicas(): number {
    if (this.settings.replicas > 0) return this.settings.replicas;
    return this.settings.urls.length >= 3 ? 3 : 1;
  }

  /** Why the link cannot be used now, or undefined when it can. */
  get unavailable(): string | undefined {
    if (this.fatal) return this.fatal.message;
    if (!this.connection || this.connection.isClosed()) return `NATS: ${this.problem}`;
    if (!this.streamReady) return `JetStream stream ${this.settings.stream}: ${this.problem}`;
    return undefined;
  }

  get js(): JetStreamClient | undefined {
    return this.unavailable ? undefined : this.client;
  }

  get jsm(): JetStreamManager | undefined {
    return this.unavailable ? undefined : this.manager;
  }

  get nats(): NatsConnection | undefined {
    return this.connection;
  }

  /** Largest message the servers take (their max_payload). */
  get maxPayload(): number {
    return this.connection?.info?.max_payload ?? 1024 * 1024;
  }

  /** Starts connecting in the background; never rejects. */
  start(): void {
    void this.connectLoop();
  }

  /** Resolves once connected with the stream in place (or when stopped). */
  whenReady(): Promise<void> {
    if (!this.unavailable || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const wake of this.readyWaiters.splice(0)) wake();
    await this.connection?.drain().catch(() => this.connection?.close());
  }

  private async connectLoop(): Promise<void> {
    const servers = describeServers(this.settings.urls);
    for (let attempt = 0; !this.stopped; attempt += 1) {
      try {
        const connection = await connect({
          servers: this.settings.urls,
          name: `sightline-${process.pid}`,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 1_000,
          pingInterval: 5_000,
          maxPingOut: 2,
          timeout: 5_000,
          ...this.authOptions(),
        });
        this.connection = connection;
        this.client = jetstream(connection, { timeout: 5_000 });
        this.manager = await jetstreamManager(connection, { timeout: 5_000 });
        this.log.info(`connected to NATS ${servers}`);
        void this.watch(connection);
        await this.ensureStreamUntilDone();
        return;
      } catch (error) {
        if (error instanceof StreamPartitionMismatch) {
          this.fatal = error;
          this.log.error(error.message);
          for (const wake of this.readyWaiters.splice(0)) wake();
          return;
        }
        this.problem = `unreachable (${(error as Error).message})`;
        const wait = backoffMs(attempt);
        this.log.warn(`NATS ${servers} unreachable: ${(error as Error).message}; retrying in ${wait} ms`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private authOptions(): { authenticator?: Authenticator; tls?: { caFile: string } } {
    const authenticator = this.settings.credentialsFile
      ? credsAuthenticator(fs.readFileSync(this.settings.credentialsFile))
      : this.settings.token
        ? tokenAuthenticator(this.settings.token)
        : undefined;
    return {
      ...(authenticator ? { authenticator } : {}),
      ...(this.settings.tlsCaFile ? { tls: { caFile: this.settings.tlsCaFile } } : {}),
    };
  }

  /** Follows the connection's state for readiness and the log. */
  private async watch(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') {
        this.problem = 'disconnected; reconnecting';
        this.streamReady = false;
        this.log.warn(`NATS connection lost; reconnecting`);
      } else if (status.type === 'reconnect') {
        this.log.info(`NATS reconnected`);
        void this.ensureStreamUntilDone();
      }
    }
  }

  private async ensureStreamUntilDone(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt += 1) {
      try {
        await this.ensureStream();
        this.streamReady = true;
        for (const wake of this.readyWaiters.splice(0)) wake();
        return;
      } catch (error) {
        if (error instanceof StreamPartitionMismatch) throw error;
        this.problem = `not available (${(error as Error).message})`;
        const wait = backoffMs(attempt);
        this.log.warn(
          `JetStream stream ${this.settings.stream} not available: ${(error as Error).message}; retrying in ${wait} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** Creates the stream on first use; otherwise checks that its stream partitions are the configured ones. */
  private async ensureStream(): Promise<void> {
    const manager = this.manager;
    if (!manager) throw new Error('not connected');
    const { stream, partitions } = this.settings;
    const subjects = streamPartitionSubjects(stream, partitions);
    try {
      const info = await manager.streams.info(stream);
      checkSubjects(stream, info.config.subjects, partitions);
      return;
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
    }
    try {
      await manager.streams.add({
        name: stream,
        subjects,
        description: `Sightline record log: ${partitions} partitions by tenant`,
        storage: StorageType.File,
        num_replicas: this.replicas,
        // A message leaves the stream once the worker that applied it acknowledged it.
        retention: RetentionPolicy.Workqueue,
        discard: DiscardPolicy.New,
        duplicate_window: DUPLICATE_WINDOW_NS,
      });
      this.log.info(`created JetStream stream ${stream}: ${partitions} stream partitions, ${this.replicas} replicas`);
    } catch (error) {
      // Another node may have created it at the same moment: then check what it created.
      const info = await manager.streams.info(stream).catch(() => {
        throw error;
      });
      checkSubjects(stream, info.config.subjects, partitions);
    }
  }
}

function checkSubjects(stream: string, subjects: string[], partitions: number): void {
  const expected = streamPartitionSubjects(stream, partitions);
  const same = subjects.length === expected.length && expected.every((subject, i) => subjects[i] === subject);
  if (!same) {
    throw new StreamPartitionMismatch(
      `the JetStream stream ${stream} was created with ${subjects.length} stream partitions but --queue-partitions (SIGHTLINE_QUEUE_PARTITIONS) is ${partitions}: give every node the stream's count (a stream's partitions are fixed when it is created)`,
    );
  }
}
