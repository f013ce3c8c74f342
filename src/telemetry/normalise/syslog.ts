// System-log records → family `syslog`: the pipeline's field table gives every forwarder's
// variant the same `program`, `message` and `hostname`, and its program and facility tables
// add the Sigma services (sshd, auth, cron, …) beside {product: linux, service: syslog}.
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import { applyMappings, firstPresent, type Fields } from './fields.js';
import type { ProcessingPipeline } from './pipeline.js';
import type { Recogniser } from './recogniser.js';

/** RFC 5424 facility numbers, for forwarders that send the number. */
const FACILITY_NAMES = [
  'kern',
  'user',
  'mail',
  'daemon',
  'auth',
  'syslog',
  'lpr',
  'news',
  'uucp',
  'cron',
  'authpriv',
  'ftp',
  'ntp',
  'security',
  'console',
  'solaris-cron',
  'local0',
  'local1',
  'local2',
  'local3',
  'local4',
  'local5',
  'local6',
  'local7',
];

interface ProgramLogsources {
  plain: LogSource[];
  byFacility: Map<string, LogSource[]>;
}

export function createSyslogRecogniser(pipeline: ProcessingPipeline): Recogniser {
  const config = pipeline.syslog;
  const product = config.product;
  const facilities = Object.entries(config.facilities);

  // Every (program, facility) combination the tables name is built once; records share them.
  const build = (services: readonly string[]): LogSource[] => {
    const logsources: LogSource[] = [{ product }, { product, service: 'syslog' }];
    for (const service of new Set(services)) if (service !== 'syslog') logsources.push({ product, service });
    return freeze(logsources);
  };
  const entry = (services: readonly string[]): ProgramLogsources => ({
    plain: build(services),
    byFacility: new Map(facilities.map(([facility, extra]) => [facility, build([...services, ...extra])])),
  });
  const unknownProgram = entry([]);
  const programs = new Map(Object.entries(config.programs).map(([program, services]) => [program, entry(services)]));

  return {
    name: 'syslog',
    recognise(_record, fields) {
      if (firstPresent(fields, config.recogniseAny) === undefined) return undefined;
      applyMappings(fields, config.fields);
      const program = fields.program;
      const known = (typeof program === 'string' ? programs.get(programKey(program)) : undefined) ?? unknownProgram;
      const facility = facilityKey(fields);
      const message = fields.message;
      return {
        family: 'syslog',
        logsources: (facility === undefined ? undefined : known.byFacility.get(facility)) ?? known.plain,
        keywords: typeof message === 'string' ? message : '',
      };
    },
  };
}

/** `sshd[812]` and `/usr/sbin/sshd` are sshd; `CRON` is cron. */
export function programKey(program: string): string {
  let name = program;
  if (name.endsWith(']')) {
    const open = name.lastIndexOf('[');
    if (open > 0) name = name.slice(0, open);
  }
  const slash = name.lastIndexOf('/');
  if (slash !== -1 && slash < name.length - 1) name = name.slice(slash + 1);
  return name.toLowerCase();
}

function facilityKey(fields: Fields): string | undefined {
  const facility = fields.facility;
  if (typeof facility === 'string') return facility.toLowerCase();
  if (typeof facility === 'number') return FACILITY_NAMES[facility];
  return undefined;
}
