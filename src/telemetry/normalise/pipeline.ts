// The processing pipeline: the mapping tables of config/detection-pipeline.yml (which record
// fields feed which Sigma taxonomy field, syslog programs → services, aliases, placeholders),
// read and validated once at start-up. A bad file stops start-up with an error naming the key.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ConfigError } from '../../config/config.js';
import { isObject, type MappedField } from './fields.js';

/** The bundled pipeline (same depth from src/telemetry/normalise and dist/telemetry/normalise). */
export const DEFAULT_PIPELINE_FILE = fileURLToPath(new URL('../../../config/detection-pipeline.yml', import.meta.url));

export interface ProcessingPipeline {
  /** The file it was read from, for messages. */
  file: string;
  /** Where an event's host comes from when its format has no host field of its own; first present wins. */
  hostFields: string[];
  /** Free text of records no family claims (and of families without their own keyword text). */
  keywordFields: string[];
  webserver: {
    recogniseAny: string[];
    /** Fields holding the whole request line (`GET /a?b=1 HTTP/1.1`). */
    requestLine: string[];
    productFields: string[];
    /** Sigma product → substrings that name it in a product field (lower case). */
    products: Record<string, string[]>;
    fields: MappedField[];
  };
  syslog: {
    recogniseAny: string[];
    product: string;
    fields: MappedField[];
    /** Program (lower case) → Sigma services. */
    programs: Record<string, string[]>;
    /** Facility (lower case) → Sigma services. */
    facilities: Record<string, string[]>;
  };
  application: {
    recogniseAny: string[];
    productFields: string[];
    fields: MappedField[];
  };
  orchestrator: {
    recogniseAny: string[];
    hostFields: string[];
  };
  windows: {
    /** Sigma service → the channel names (lower case) whose events satisfy {product: windows, service}. */
    channels: Record<string, string[]>;
  };
  /** Applied to every event, after its family's own mapping. */
  aliases: MappedField[];
  /** Values for Sigma's `expand` modifier (`%admin_users%`), consumed by the rule engine. */
  placeholders: Record<string, string[]>;
}

export class PipelineError extends ConfigError {
  override name = 'PipelineError';

  constructor(
    readonly file: string,
    readonly key: string,
    problem: string,
  ) {
    super(`processing pipeline ${file}: ${key === '' ? '' : `${key}: `}${problem}`);
  }
}

/** Reads and validates a pipeline file (default: the bundled config/detection-pipeline.yml). */
export function loadPipeline(file: string = DEFAULT_PIPELINE_FILE): ProcessingPipeline {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new PipelineError(file, '', `cannot be read (${code})`);
  }
  return parsePipeline(text, file);
}

export function parsePipeline(text: string, file: string): ProcessingPipeline {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new PipelineError(file, '', `is not valid YAML: ${(error as Error).message}`);
  }
  const reader = new Reader(file);
  const root = reader.section(document, '', [
    'version',
    'host_fields',
    'keyword_fields',
    'webserver',
    'syslog',
    'application',
    'orchestrator',
    'windows',
    'aliases',
    'placeholders',
  ]);
  if (root.version !== 1)
    throw new PipelineError(
      file,
      'version',
      `must be 1 (the only version this Sightline reads), got ${JSON.stringify(root.version)}`,
    );

  const web = reader.section(root.webserver, 'webserver', [
    'recognise_any',
    'request_line',
    'product_fields',
    'products',
    'fields',
  ]);
  const syslog = reader.section(root.syslog, 'syslog', [
    'recognise_any',
    'product',
    'fields',
    'programs',
    'facilities',
  ]);
  const application = reader.section(root.application, 'application', ['recognise_any', 'product_fields', 'fields']);
  const orchestrator = reader.section(root.orchestrator, 'orchestrator', ['recognise_any', 'host_fields']);
  // Optional, so that a pipeline written before Windows event logs were recognised still loads.
  const windows = root.windows === undefined ? { channels: {} } : reader.section(root.windows, 'windows', ['channels']);

  const pipeline: ProcessingPipeline = {
    file,
    hostFields: reader.names(root.host_fields, 'host_fields'),
    keywordFields: reader.names(root.keyword_fields, 'keyword_fields'),
    webserver: {
      recogniseAny: reader.names(web.recognise_any, 'webserver.recognise_any'),
      requestLine: reader.names(web.request_line, 'webserver.request_line'),
      productFields: reader.names(web.product_fields, 'webserver.product_fields'),
      products: reader.lists(web.products, 'webserver.products', { lowerCase: true }),
      fields: reader.mappings(web.fields, 'webserver.fields'),
    },
    syslog: {
      recogniseAny: reader.names(syslog.recognise_any, 'syslog.recognise_any'),
      product: reader.name(syslog.product, 'syslog.product'),
      fields: reader.mappings(syslog.fields, 'syslog.fields'),
      programs: reader.lowerCaseKeys(reader.lists(syslog.programs, 'syslog.programs', {}), 'syslog.programs'),
      facilities: reader.lowerCaseKeys(reader.lists(syslog.facilities, 'syslog.facilities', {}), 'syslog.facilities'),
    },
    application: {
      recogniseAny: reader.names(application.recognise_any, 'application.recognise_any'),
      productFields: reader.names(application.product_fields, 'application.product_fields'),
      fields: reader.mappings(application.fields, 'application.fields'),
    },
    orchestrator: {
      recogniseAny: reader.names(orchestrator.recognise_any, 'orchestrator.recognise_any'),
      hostFields: reader.names(orchestrator.host_fields, 'orchestrator.host_fields'),
    },
    windows: {
      channels: reader.lists(windows.channels ?? {}, 'windows.channels', { lowerCase: true }),
    },
    aliases: reader.mappings(root.aliases, 'aliases'),
    placeholders: reader.placeholders(root.placeholders, 'placeholders'),
  };
  // The syslog and application steps read these targets back (services, keywords).
  for (const target of ['program', 'message']) reader.requireTarget(pipeline.syslog.fields, 'syslog.fields', target);
  reader.requireTarget(pipeline.application.fields, 'application.fields', 'message');
  return pipeline;
}

const PLACEHOLDER_NAME = /^[A-Za-z0-9_.-]+$/;

/** Reads one validated piece at a time; every failure names the file and the key. */
class Reader {
  constructor(private readonly file: string) {}

  fail(key: string, problem: string): never {
    throw new PipelineError(this.file, key, problem);
  }

  section(value: unknown, key: string, allowed: readonly string[]): Record<string, unknown> {
    if (value === undefined || value === null) this.fail(key, 'is missing');
    if (!isObject(value)) this.fail(key, `must be a mapping, got ${describe(value)}`);
    for (const name of Object.keys(value)) {
      if (!allowed.includes(name))
        this.fail(join(key, name), `is not a known key (expected one of: ${allowed.join(', ')})`);
    }
    return value;
  }

  name(value: unknown, key: string): string {
    if (typeof value !== 'string' || value.trim() === '')
      this.fail(key, `must be a non-empty string, got ${describe(value)}`);
    return value;
  }

  names(value: unknown, key: string): string[] {
    if (value === undefined || value === null) this.fail(key, 'is missing');
    if (!Array.isArray(value)) this.fail(key, `must be a list of field names, got ${describe(value)}`);
    return value.map((item, index) => this.name(item, `${key}[${index}]`));
  }

  /** A mapping of name → list of strings (`sshd: [sshd, auth]`). */
  lists(value: unknown, key: string, options: { lowerCase?: boolean }): Record<string, string[]> {
    const entries = this.entries(value, key).map(([name, list]): [string, string[]] => {
      const items = this.names(list, join(key, name));
      if (items.length === 0) this.fail(join(key, name), 'must list at least one value');
      return [name, options.lowerCase ? items.map((item) => item.toLowerCase()) : items];
    });
    return Object.fromEntries(entries);
  }

  /** Lower-cases the keys (lookups are case-insensitive: `CRON` and `cron`), merging duplicates. */
  lowerCaseKeys(table: Record<string, string[]>, key: string): Record<string, string[]> {
    const merged = new Map<string, string[]>();
    for (const [name, items] of Object.entries(table)) {
      const lower = name.toLowerCase();
      if (merged.has(lower)) this.fail(join(key, name), `duplicates ${lower} (keys are compared without case)`);
      merged.set(lower, items);
    }
    return Object.fromEntries(merged);
  }

  /** Taxonomy field → source fields, in file order. */
  mappings(value: unknown, key: string): MappedField[] {
    return this.entries(value, key).map(([target, sources]) => {
      const list = this.names(sources, join(key, target));
      if (list.length === 0) this.fail(join(key, target), 'must list at least one source field');
      return { target, sources: list };
    });
  }

  placeholders(value: unknown, key: string): Record<string, string[]> {
    const entries = this.entries(value, key).map(([name, list]): [string, string[]] => {
      if (!PLACEHOLDER_NAME.test(name))
        this.fail(join(key, name), 'must be letters, digits, `_`, `-` or `.` (it is written %name% in rules)');
      if (!Array.isArray(list)) this.fail(join(key, name), `must be a list of values, got ${describe(list)}`);
      // Numbers are allowed (`ssh_ports: [22, 2222]`); rules compare the expanded values as text.
      return [
        name,
        list.map((item, index) => {
          if (typeof item === 'string') return item;
          if (typeof item === 'number') return String(item);
          return this.fail(`${join(key, name)}[${index}]`, `must be a string or a number, got ${describe(item)}`);
        }),
      ];
    });
    return Object.fromEntries(entries);
  }

  requireTarget(mappings: readonly MappedField[], key: string, target: string): void {
    if (!mappings.some((mapping) => mapping.target === target))
      this.fail(join(key, target), 'is missing (the normaliser reads it back)');
  }

  private entries(value: unknown, key: string): [string, unknown][] {
    if (value === undefined || value === null) this.fail(key, 'is missing');
    if (!isObject(value)) this.fail(key, `must be a mapping, got ${describe(value)}`);
    return Object.entries(value);
  }
}

function join(key: string, name: string): string {
  return key === '' ? name : `${key}.${name}`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}
