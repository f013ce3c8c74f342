// Loading: merges command line, environment and defaults into a Config, then checks the rules
// that span several settings. A bad value stops start-up with a ConfigError naming the setting
// and where it came from, so a typo never turns into a silently different behaviour.
import fs from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { codeNameRule, isValidCodeName } from '../core/code-name.js';
import type { Setting } from './setting-spec.js';
import { settings, type CliValues, type Config, type SettingName } from './settings.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Resolve the configuration: command-line value, else environment variable, else default.
 * Throws ConfigError naming the setting when a value is invalid.
 */
export function loadConfig(cli: CliValues = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(settings) as [SettingName, Setting<unknown>][]) {
    // Secrets never come from the command line: flags are visible to every user in `ps`.
    const fromCli = spec.secret ? undefined : cli[name];
    const raw = fromCli !== undefined ? String(fromCli) : env[spec.env];
    if (raw === undefined) {
      config[name] = spec.default;
      continue;
    }
    try {
      config[name] = spec.parse(raw);
    } catch (error) {
      const origin = fromCli !== undefined ? `--${spec.flag}` : spec.env;
      const reason = error instanceof Error ? error.message : String(error);
      // Never echo a secret, not even a wrong one: start-up errors end up in logs.
      const got = spec.secret ? '' : ` (got ${JSON.stringify(raw)})`;
      throw new ConfigError(`invalid configuration: ${origin} ${reason}${got}`);
    }
  }
  // Every key of settings was set above, each by its own parser or default.
  return validateTogether(config as Config);
}

/** Rules no single parser can check: settings that need each other or must agree. */
function validateTogether(config: Config): Config {
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) {
    throw new ConfigError(
      'invalid configuration: --tls-cert (SIGHTLINE_TLS_CERT) and --tls-key (SIGHTLINE_TLS_KEY) must be given together',
    );
  }
  if (config.headerTimeout > config.requestTimeout) {
    throw new ConfigError(
      `invalid configuration: --header-timeout (SIGHTLINE_HEADER_TIMEOUT) must not exceed --request-timeout (SIGHTLINE_REQUEST_TIMEOUT): ${config.headerTimeout / 1000} s > ${config.requestTimeout / 1000} s`,
    );
  }
  if (config.tokenMaxLifetime !== null && config.tokenMaxLifetime < config.tokenLifetime) {
    throw new ConfigError(
      `invalid configuration: --token-max-lifetime (SIGHTLINE_TOKEN_MAX_LIFETIME) must be at least --token-lifetime (SIGHTLINE_TOKEN_LIFETIME): ${config.tokenMaxLifetime / 86_400_000} d < ${config.tokenLifetime / 86_400_000} d`,
    );
  }
  if (config.defaultTenant !== '' && !isValidCodeName(config.defaultTenant)) {
    throw new ConfigError(
      `invalid configuration: --default-tenant (SIGHTLINE_DEFAULT_TENANT) ${codeNameRule} (got ${JSON.stringify(config.defaultTenant)})`,
    );
  }
  const tlsFiles = [
    [config.tlsCert, '--tls-cert (SIGHTLINE_TLS_CERT)'],
    [config.tlsKey, '--tls-key (SIGHTLINE_TLS_KEY)'],
  ] as const;
  for (const [file, setting] of tlsFiles) {
    if (file && !isReadableFile(file)) {
      throw new ConfigError(`invalid configuration: ${setting} ${JSON.stringify(file)} is not a readable file`);
    }
  }
  if (config.summaryMonitoring === 'otlp' && config.otlpEndpoint === '') {
    throw new ConfigError(
      'invalid configuration: --summary-monitoring otlp needs --otlp-endpoint (SIGHTLINE_OTLP_ENDPOINT)',
    );
  }
  const providerModels = [
    ['openai', config.openaiModel, '--openai-model (SIGHTLINE_OPENAI_MODEL)'],
    ['anthropic', config.anthropicModel, '--anthropic-model (SIGHTLINE_ANTHROPIC_MODEL)'],
  ] as const;
  for (const [provider, model, setting] of providerModels) {
    if (config.summaryProvider === provider && model === '') {
      throw new ConfigError(`invalid configuration: --summary-provider ${provider} needs ${setting}`);
    }
  }
  validateScaleOut(config);
  if (config.maxRecordBytes > config.maxBodyBytes) {
    throw new ConfigError(
      'invalid configuration: --max-record-bytes (SIGHTLINE_MAX_RECORD_BYTES) must not exceed --max-body-bytes (SIGHTLINE_MAX_BODY_BYTES)',
    );
  }
  return { ...config, dataDir: path.resolve(config.dataDir) };
}

/** The scale-out mode's rules (docs/scale.md): split roles share a queue and PostgreSQL. */
function validateScaleOut(config: Config): void {
  const split = config.role.length < 3;
  if (split && config.queue.length === 0) {
    throw new ConfigError(
      `invalid configuration: --role (SIGHTLINE_ROLE) ${config.role.join(',')} needs --queue (SIGHTLINE_QUEUE): the roles share the record log on NATS JetStream`,
    );
  }
  const postgres = /^postgres(ql)?:\/\//.test(config.databaseUrl);
  if (config.queue.length > 0 && !postgres) {
    throw new ConfigError(
      'invalid configuration: --queue (SIGHTLINE_QUEUE) needs --database (SIGHTLINE_DATABASE_URL) to be a postgres:// URL: every node shares one PostgreSQL database',
    );
  }
  const files = [
    [config.queueCredentials, '--queue-credentials (SIGHTLINE_QUEUE_CREDENTIALS)'],
    [config.queueTlsCa, '--queue-tls-ca (SIGHTLINE_QUEUE_TLS_CA)'],
  ] as const;
  for (const [file, setting] of files) {
    if (file && !isReadableFile(file)) {
      throw new ConfigError(`invalid configuration: ${setting} ${JSON.stringify(file)} is not a readable file`);
    }
  }
}

function isReadableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return fs.statSync(file).isFile();
  } catch {
    // Missing or unreadable: the caller reports the setting that names it.
    return false;
  }
}

/** Serving plain HTTP on a routable address would expose tokens and logs; refuse unless told. */
export function checkListenSafety(config: Config): void {
  const tls = Boolean(config.tlsCert);
  if (!tls && !config.insecureHttp && !isLoopback(config.host)) {
    throw new ConfigError(
      `invalid configuration: --host (SIGHTLINE_HOST) ${config.host} is not a loopback address and no TLS is configured; ` +
        'give --tls-cert and --tls-key, or --insecure-http when a TLS-terminating proxy sits in front',
    );
  }
}

/** `localhost`, `::1` (bracketed or not) and 127.0.0.0/8. */
export function isLoopback(host: string): boolean {
  const value = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (value === 'localhost' || value === '::1') return true;
  return isIP(value) === 4 && value.startsWith('127.');
}
