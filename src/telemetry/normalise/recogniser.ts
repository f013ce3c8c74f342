// The interface every record shape implements: look at a parsed record (and its flattened
// fields), and either decline or claim it — adding its taxonomy fields and saying its family,
// logsources and keyword text. Adding a shape is adding a file and one line in normaliser.ts.
import type { LogSource, RecordFamily } from './event.js';
import type { EndpointInfo } from './endpoint.js';
import type { Fields } from './fields.js';

export interface Recognised {
  family: RecordFamily;
  logsources: LogSource[];
  keywords: string;
  /** The device, when the format has its own host field; else the pipeline's host_fields decide. */
  host?: string | null;
  /** Endpoint telemetry: the normaliser builds the process or network row from the fields. */
  endpoint?: EndpointInfo;
}

export interface Recogniser {
  readonly name: string;
  /** Undefined: not this shape (and `fields` untouched). Otherwise `fields` has the taxonomy fields added. */
  recognise(record: Record<string, unknown>, fields: Fields): Recognised | undefined;
}
