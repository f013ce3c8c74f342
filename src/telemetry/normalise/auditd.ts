// Linux auditd as JSON: Laurel's combined events (one object per audit event: SYSCALL, EXECVE,
// CWD, PROCTITLE, PARENT_INFO…) and single auditd records as flat JSON (`type: "EXECVE"`, …).
// Stateless: records of one event are never joined. A flat EXECVE record has the arguments but no
// exe, pid or ppid (they are on its SYSCALL record); a flat execve SYSCALL record has the exe, pid,
// ppid and uid but no arguments. So one exec logged as flat records yields two process events,
// each partial; Laurel (or any forwarder that combines an event's records) yields one, complete.
import { endpointLogsources, freeze } from './endpoint.js';
import { asInt, asText, basename, isObject, setIfPresent, type Fields } from './fields.js';
import type { Recognised, Recogniser } from './recogniser.js';

/** Laurel's event id: `<seconds>.<millis>:<serial>`. */
const AUDIT_ID = /^\d+\.\d+:\d+$/;
const AUDIT_TYPE = /^[A-Z][A-Z0-9_]+$/;
const HEX = /^(?:[0-9A-F]{2})+$/;
const TRAILING_NULS = /\0+$/;
/** Path-like values auditd may hex-encode; decoded in place on flat records. */
const ENCODED_FIELDS = ['exe', 'comm', 'cwd', 'name'] as const;
/** Fields only auditd records carry; a flat record needs one of them (or an `audit(` msg) beside its type. */
const FLAT_MARKERS = ['auid', 'ses', 'argc', 'a0', 'arch', 'syscall', 'proctitle'] as const;
/** a0…a127 become fields; CommandLine has every argument. */
const MAX_ARG_FIELDS = 128;
const ARG_KEYS = Array.from({ length: MAX_ARG_FIELDS }, (_, index) => `a${index}`);
/** Beyond this many arguments a flat EXECVE record's CommandLine stops (a record says its own argc). */
const MAX_ARGS = 4096;

/** execve and execveat on x86_64, also what a record without an arch is taken to use. */
const X86_64: readonly number[] = [59, 322];
/** execve and execveat numbers per audit arch (the `arch` field, without 0x, or its name). */
const EXEC_SYSCALLS = new Map<string, readonly number[]>([
  ['c000003e', X86_64],
  ['x86_64', X86_64],
  ['c00000b7', [221, 281]],
  ['aarch64', [221, 281]],
  ['40000003', [11, 358]],
  ['i386', [11, 358]],
  ['i686', [11, 358]],
]);

const OTHER_LOGSOURCES = freeze([{ product: 'linux', service: 'auditd' }]);
const PROCESS_LOGSOURCES = endpointLogsources('process_creation', 'linux', 'auditd');

export const auditdRecogniser: Recogniser = {
  name: 'auditd',
  recognise(record, fields) {
    if (typeof record.ID === 'string' && AUDIT_ID.test(record.ID)) return laurel(record, fields);
    const type = record.type;
    if (typeof type === 'string' && AUDIT_TYPE.test(type) && isFlatAuditRecord(record))
      return flat(type, record, fields);
    return undefined;
  },
};

function isFlatAuditRecord(record: Record<string, unknown>): boolean {
  if (typeof record.msg === 'string' && record.msg.startsWith('audit(')) return true;
  for (const marker of FLAT_MARKERS) if (record[marker] !== undefined) return true;
  return false;
}

function laurel(record: Record<string, unknown>, fields: Fields): Recognised {
  // Rules written for single records say `type: EXECVE` or `type: SYSCALL`: the event's record
  // types, as a list, satisfy either.
  const types: string[] = [];
  for (const key in record) {
    const value = record[key];
    if (key !== 'PARENT_INFO' && value !== null && typeof value === 'object' && AUDIT_TYPE.test(key)) types.push(key);
  }
  if (fields.type === undefined) fields.type = types;
  const syscall = isObject(record.SYSCALL) ? record.SYSCALL : undefined;
  if (syscall) for (const name in syscall) if (fields[name] === undefined) setIfPresent(fields, name, syscall[name]);

  const execve = isObject(record.EXECVE) ? record.EXECVE : undefined;
  let commandLine: string | undefined;
  if (execve) {
    setIfPresent(fields, 'argc', execve.argc);
    const argv = execve.ARGV;
    if (Array.isArray(argv)) {
      // Laurel has already decoded the arguments.
      const limit = Math.min(argv.length, MAX_ARG_FIELDS);
      for (let index = 0; index < limit; index++) setIfPresent(fields, ARG_KEYS[index] ?? `a${index}`, argv[index]);
      commandLine = argv.join(' ');
    } else if (typeof execve.ARGV_STR === 'string') commandLine = execve.ARGV_STR;
  }
  if (commandLine === undefined && isObject(record.PROCTITLE) && Array.isArray(record.PROCTITLE.ARGV))
    commandLine = record.PROCTITLE.ARGV.join(' ');

  const isExec = syscall ? isExecSyscall(syscall) : execve !== undefined;
  if (!isExec || syscall?.success === 'no')
    return { family: 'other', logsources: OTHER_LOGSOURCES, keywords: commandLine ?? '' };

  const parent = isObject(record.PARENT_INFO) ? record.PARENT_INFO : undefined;
  if (syscall) {
    setIfPresent(fields, 'Image', syscall.exe);
    setIfPresent(fields, 'ProcessId', syscall.pid);
    setIfPresent(fields, 'ParentProcessId', syscall.ppid);
    setIfPresent(fields, 'User', syscall.UID ?? syscall.uid);
  }
  if (commandLine !== undefined) fields.CommandLine = commandLine;
  if (isObject(record.CWD)) setIfPresent(fields, 'CurrentDirectory', record.CWD.cwd);
  if (parent) setIfPresent(fields, 'ParentImage', parent.exe);
  return {
    family: 'process',
    logsources: PROCESS_LOGSOURCES,
    keywords: commandLine ?? '',
    endpoint: {
      kind: 'process',
      format: 'auditd',
      endpointId: null,
      processName: typeof syscall?.comm === 'string' ? syscall.comm : null,
      parentName: typeof parent?.comm === 'string' ? parent.comm : null,
    },
  };
}

function flat(type: string, record: Record<string, unknown>, fields: Fields): Recognised {
  for (const name of ENCODED_FIELDS) {
    const value = record[name];
    if (typeof value === 'string') fields[name] = decodeAuditValue(value, false);
  }
  if (type === 'EXECVE') {
    const commandLine = flatArguments(record, fields);
    fields.CommandLine = commandLine;
    const first = fields.a0;
    return {
      family: 'process',
      logsources: PROCESS_LOGSOURCES,
      keywords: commandLine,
      endpoint: {
        kind: 'process',
        format: 'auditd',
        endpointId: null,
        processName: typeof first === 'string' ? basename(first) : null,
      },
    };
  }
  if (type === 'SYSCALL' && isExecSyscall(record) && record.success !== 'no') {
    setIfPresent(fields, 'Image', fields.exe);
    setIfPresent(fields, 'ProcessId', record.pid);
    setIfPresent(fields, 'ParentProcessId', record.ppid);
    setIfPresent(fields, 'User', record.UID ?? record.uid);
    const comm = fields.comm;
    return {
      family: 'process',
      logsources: PROCESS_LOGSOURCES,
      keywords: '',
      endpoint: {
        kind: 'process',
        format: 'auditd',
        endpointId: null,
        processName: typeof comm === 'string' ? comm : null,
      },
    };
  }
  let keywords = '';
  if (type === 'PROCTITLE' && typeof record.proctitle === 'string') {
    keywords = decodeAuditValue(record.proctitle, true);
    fields.proctitle = keywords;
  }
  return { family: 'other', logsources: OTHER_LOGSOURCES, keywords };
}

/** a0…a(argc-1), decoded; auditd splits a long argument into `aN[0]`, `aN[1]`… with `aN_len`. */
function flatArguments(record: Record<string, unknown>, fields: Fields): string {
  const argc = asInt(record.argc);
  const limit = Math.min(argc ?? MAX_ARGS, MAX_ARGS);
  let commandLine = '';
  for (let index = 0; index < limit; index++) {
    const key = ARG_KEYS[index] ?? `a${index}`;
    let raw = record[key];
    if (raw === undefined && record[`${key}_len`] !== undefined) raw = joinSplitArgument(record, key);
    if (raw === undefined) break;
    // Numbers and booleans as their text; anything else (never seen from auditd) as JSON.
    const value = typeof raw === 'string' ? decodeAuditValue(raw, false) : (asText(raw) ?? JSON.stringify(raw));
    if (index < MAX_ARG_FIELDS) fields[key] = value;
    commandLine = index === 0 ? value : `${commandLine} ${value}`;
  }
  return commandLine;
}

function joinSplitArgument(record: Record<string, unknown>, key: string): string | undefined {
  let joined = '';
  for (let part = 0; part < MAX_ARGS; part++) {
    const piece = record[`${key}[${part}]`];
    if (typeof piece !== 'string') break;
    joined += piece;
  }
  return joined === '' ? undefined : joined;
}

function isExecSyscall(record: Record<string, unknown>): boolean {
  // The ENRICHED log format (and Laurel) add the syscall's name as `SYSCALL`.
  const named = typeof record.SYSCALL === 'string' ? record.SYSCALL : record.syscall;
  if (named === 'execve' || named === 'execveat') return true;
  const number = asInt(named);
  if (number === null) return false;
  const arch = record.arch ?? record.ARCH;
  // Without an arch the record is taken to be x86_64's; with an unknown arch only names count.
  const numbers = typeof arch === 'string' ? EXEC_SYSCALLS.get(stripHexPrefix(arch).toLowerCase()) : X86_64;
  return numbers?.includes(number) ?? false;
}

function stripHexPrefix(value: string): string {
  return value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
}

/**
 * auditd writes a value in double quotes, or — when it holds a space, a quote, a control or a
 * non-ASCII character — as unquoted upper-case hex. JSON converters often drop the quotes, so a
 * hex-looking value is decoded only when its text is one auditd would have had to encode: "CAFE"
 * or "1234" stay as they are. `proctitle` separates arguments with NUL, shown as spaces.
 */
export function decodeAuditValue(value: string, nulSeparated: boolean): string {
  const length = value.length;
  if (length >= 2 && value.charCodeAt(0) === 34 && value.charCodeAt(length - 1) === 34) return value.slice(1, -1);
  if (length < 2 || !HEX.test(value)) return value;
  const decoded = Buffer.from(value, 'hex').toString('utf8');
  let needsEncoding = false;
  for (let i = 0; i < decoded.length; i++) {
    const code = decoded.charCodeAt(i);
    if (code === 0xfffd) return value; // not valid UTF-8: not auditd hex
    if (code === 0 && nulSeparated) needsEncoding = true;
    else if (code === 32 || code === 34 || code === 9 || code === 10 || code === 13 || code > 0x7e)
      needsEncoding = true;
    else if (code < 32) return value; // other control characters: hex-looking text, not an encoding
  }
  if (!needsEncoding) return value;
  return nulSeparated ? decoded.replace(TRAILING_NULS, '').replaceAll('\0', ' ') : decoded;
}
