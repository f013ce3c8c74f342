// Response schemas of the investigation reads: GET /v1/cases/{case_id}/process-tree and
// GET /v1/cases/{case_id}/timeline.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { INVESTIGATION_LIMITS } from './case-investigation.js';

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const NullableInteger = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });
const ObservationIds = Type.Array(Type.String(), {
  description: 'The observations of the case whose triggering records include this row (empty: context only)',
});

export const ConnectionSchema = Type.Object({
  id: Type.String({ description: 'Evidence id (`net_…`), as summaries cite it' }),
  time: Timestamp('When the connection was seen'),
  process_name: NullableString('The process that made it'),
  pid: NullableInteger('Its process id'),
  source_ip: NullableString('Source address'),
  source_port: NullableInteger('Source port'),
  destination_ip: NullableString('Destination address'),
  destination_port: NullableInteger('Destination port'),
  destination_hostname: NullableString('Destination host name, when the record named one'),
  protocol: NullableString('Protocol, as the record named it'),
  direction: NullableString('`inbound` or `outbound`, when known'),
  observation_ids: ObservationIds,
});

export const ProcessNodeSchema = Type.Object({
  id: Type.String({
    description:
      'Evidence id (`proc_…`); an inferred process has `parent_of_proc_…` (from a child) or `process_of_net_…` (from a connection)',
  }),
  parent_id: NullableString('The parent node in this list; null for a root'),
  inferred: Type.Boolean({
    description:
      'True for a process known only from its children or its connections (no process-creation record of its own)',
  }),
  time: Type.Union([Timestamp('When the process started'), Type.Null()]),
  pid: NullableInteger('Process id'),
  name: NullableString('Process name'),
  executable_path: NullableString('Executable path'),
  command_line: NullableString('Command line'),
  user: NullableString('User the process ran as'),
  observation_ids: ObservationIds,
  connections: Type.Array(ConnectionSchema, {
    description: `Network connections this process made (at most ${INVESTIGATION_LIMITS.connectionsPerProcess})`,
  }),
});

export const ProcessTreeSchema = Type.Object({
  case_id: Type.String(),
  window: Type.Union(
    [
      Type.Object({ from: Timestamp('Start of the activity read'), to: Timestamp('End of the activity read') }),
      Type.Null(),
    ],
    { description: 'The time range read on each device; null when the case holds no observation' },
  ),
  devices: Type.Array(
    Type.Object({
      device_id: Type.String(),
      host_name: Type.String(),
      processes: Type.Array(ProcessNodeSchema, { description: 'Flat, oldest first; `parent_id` links the tree' }),
      truncated: Type.Boolean({
        description: `True when more than ${INVESTIGATION_LIMITS.processesPerDevice} processes qualified`,
      }),
    }),
  ),
  observations_truncated: Type.Boolean({
    description: `True when the case holds more than the ${INVESTIGATION_LIMITS.observations} most recent observations read`,
  }),
});

const TimelineProcess = Type.Object({
  name: NullableString('Process name'),
  pid: NullableInteger('Process id'),
  executable_path: NullableString('Executable path'),
  command_line: NullableString('Command line'),
  user: NullableString('User'),
  parent_name: NullableString('Parent process name'),
  parent_pid: NullableInteger('Parent process id'),
});

export const TimelineSchema = Type.Object({
  case_id: Type.String(),
  entries: Type.Array(
    Type.Object({
      id: Type.String({ description: 'Observation id (`obs_…`) or evidence id (`proc_…`, `net_…`)' }),
      kind: Type.Union([Type.Literal('observation'), Type.Literal('process'), Type.Literal('connection')]),
      time: Timestamp('When it happened (an observation: its first record)'),
      host: NullableString('Host named by the record'),
      device_id: NullableString('The device of the host'),
      observation_ids: ObservationIds,
      observation: Type.Union([
        Type.Object({ rule_title: Type.String(), level: Type.String(), techniques: Type.Array(Type.String()) }),
        Type.Null(),
      ]),
      process: Type.Union([TimelineProcess, Type.Null()]),
      connection: Type.Union([ConnectionSchema, Type.Null()]),
    }),
    { description: 'Oldest first; at one instant an observation precedes its evidence' },
  ),
  truncated: Type.Boolean({
    description: `True when entries were left out (more than ${INVESTIGATION_LIMITS.timelineEntries}, or observations beyond the ${INVESTIGATION_LIMITS.observations} most recent)`,
  }),
});
