// Sightline's generic endpoint shape, for agents and scripts that emit neither Sysmon, auditd
// nor osquery. It is documented below (docs/detection.md quotes it) and mapped onto the same
// Sysmon-style fields as the other endpoint formats, so one rule covers every source.
//
// Process start:
//   {"type": "process", "timestamp": "2026-11-22T10:00:00Z", "host": "web-01",
//    "endpoint_id": "agent-7f3a", "os": "linux", "user": "alice",
//    "process": {"name": "curl", "pid": 123, "executable": "/usr/bin/curl",
//                "command_line": "curl -o /tmp/x http://198.51.100.7/x", "working_directory": "/home/alice"},
//    "parent":  {"name": "bash", "pid": 100, "executable": "/bin/bash", "command_line": "bash"}}
// Network connection:
//   {"type": "network", "timestamp": "…", "host": "web-01", "endpoint_id": "agent-7f3a", "os": "linux",
//    "user": "alice", "process": {"name": "curl", "pid": 123, "executable": "/usr/bin/curl"},
//    "source": {"ip": "10.0.0.5", "port": 51234},
//    "destination": {"ip": "198.51.100.7", "port": 443, "hostname": "example.org"},
//    "protocol": "tcp", "direction": "outbound"}
// Every field but `type` and `process` is optional. `os` (linux, windows, macos) gives the
// Sigma product; without it only the category logsource applies.
//
// Mapping: process.executable → Image, process.command_line → CommandLine, process.pid →
// ProcessId, process.working_directory → CurrentDirectory, parent.executable → ParentImage,
// parent.command_line → ParentCommandLine, parent.pid → ParentProcessId, user → User;
// source.ip/port → SourceIp/SourcePort, destination.ip/port/hostname → DestinationIp/
// DestinationPort/DestinationHostname, protocol → Protocol (lower case), direction outbound →
// Initiated 'true', inbound → 'false'.
import { endpointLogsources, PORT_FIELDS } from './endpoint.js';
import { applyMappings, asText, fixedMappings, isObject, numbersWherePossible } from './fields.js';
import type { Recogniser } from './recogniser.js';

const PROCESS_FIELDS = fixedMappings([
  ['Image', 'process.executable'],
  ['CommandLine', 'process.command_line'],
  ['ProcessId', 'process.pid'],
  ['CurrentDirectory', 'process.working_directory'],
  ['ParentImage', 'parent.executable'],
  ['ParentCommandLine', 'parent.command_line'],
  ['ParentProcessId', 'parent.pid'],
  ['User', 'user'],
]);
const NETWORK_FIELDS = fixedMappings([
  ['Image', 'process.executable'],
  ['ProcessId', 'process.pid'],
  ['User', 'user'],
  ['SourceIp', 'source.ip'],
  ['SourcePort', 'source.port'],
  ['DestinationIp', 'destination.ip'],
  ['DestinationPort', 'destination.port'],
  ['DestinationHostname', 'destination.hostname'],
]);
const PRODUCTS = new Map<string, string>([
  ['linux', 'linux'],
  ['windows', 'windows'],
  ['macos', 'macos'],
  ['darwin', 'macos'],
]);

export const genericRecogniser: Recogniser = {
  name: 'generic',
  recognise(record, fields) {
    const type = record.type;
    if ((type !== 'process' && type !== 'network') || !isObject(record.process)) return undefined;
    const os = typeof record.os === 'string' ? record.os.toLowerCase() : null;
    const product = os === null ? null : (PRODUCTS.get(os) ?? os);
    const endpointId = asText(record.endpoint_id);
    const processName = asText(record.process.name);
    const host = typeof record.host === 'string' ? record.host : null;

    if (type === 'process') {
      applyMappings(fields, PROCESS_FIELDS);
      const parent = isObject(record.parent) ? record.parent : undefined;
      return {
        family: 'process',
        logsources: endpointLogsources('process_creation', product),
        keywords: typeof fields.CommandLine === 'string' ? fields.CommandLine : '',
        host,
        endpoint: {
          kind: 'process',
          format: 'generic',
          endpointId,
          processName,
          parentName: parent ? asText(parent.name) : null,
        },
      };
    }
    applyMappings(fields, NETWORK_FIELDS);
    numbersWherePossible(fields, PORT_FIELDS);
    if (typeof record.protocol === 'string') fields.Protocol = record.protocol.toLowerCase();
    if (record.direction === 'outbound') fields.Initiated = 'true';
    else if (record.direction === 'inbound') fields.Initiated = 'false';
    return {
      family: 'network',
      logsources: endpointLogsources('network_connection', product),
      keywords: '',
      host,
      endpoint: { kind: 'network', format: 'generic', endpointId, processName },
    };
  },
};
