// SigmaHQ's Windows rules through the real normaliser and engine on evtx_dump, python-evtx,
// Winlogbeat, Fluent Bit and flat records: Provider_Name from evtx_dump's `#attributes`, UserData
// read as plain fields, and unnamed values as the multi-valued `Data` that `Data|contains` selects
// on (any value matches) and that exclusions reading `Data` filter out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadRuleDirectories, RuleSet } from '../../src/detection/sigma/index.js';
import { createNormaliser, loadPipeline } from '../../src/telemetry/normalise/index.js';
import {
  LOG_CLEARED,
  MSSQL_OPTION_CHANGED,
  SERVICE_INSTALLED,
  WMI_CONSUMER,
  msiTransaction,
  mssqlFailedLogin,
} from '../../src/telemetry/normalise/test-windows-events.js';
import {
  evtxDump,
  flat,
  fluentBit,
  pythonEvtx,
  winlogbeat7,
  winlogbeat8,
  type WindowsEvent,
} from '../../src/telemetry/normalise/test-windows-shapes.js';
import { SIGMAHQ_RULES } from '../helpers/sigmahq.js';

const RULES = {
  logCleared: 'windows/builtin/security/win_security_audit_log_cleared.yml',
  psexecService: 'windows/builtin/system/service_control_manager/win_system_service_install_sysinternals_psexec.yml',
  wmiSubscription: 'windows/wmi_event/sysmon_wmi_event_subscription.yml',
  xpCmdshell: 'windows/builtin/application/mssqlserver/win_mssql_xp_cmdshell_change.yml',
  externalLogon: 'windows/builtin/application/mssqlserver/win_mssql_failed_logon_from_external_network.yml',
  msiSuspicious: 'windows/builtin/application/msiinstaller/win_msi_install_from_susp_locations.yml',
} as const;

const pipeline = loadPipeline();
const normaliser = createNormaliser(pipeline);
const compilation = loadRuleDirectories(
  Object.values(RULES).map((file) => path.join(SIGMAHQ_RULES, file)),
  { placeholders: pipeline.placeholders },
);
const ruleSet = new RuleSet(compilation.rules);
const idOf = new Map(compilation.rules.map((rule) => [rule.file, rule.id]));

/** The rule files (relative to SigmaHQ's rules/) that fire on the record. */
function fired(record: Record<string, unknown>): string[] {
  const event = normaliser.normalise({
    seq: 1,
    tenantId: 1,
    receivedAt: 0,
    eventTime: 0,
    record: JSON.stringify(record),
    meta: null,
  });
  return ruleSet.match(event).map((rule) => path.relative(SIGMAHQ_RULES, rule.file));
}

const SHAPES = { evtxDump, pythonEvtx, winlogbeat7, winlogbeat8, fluentBit: (e: WindowsEvent) => fluentBit(e), flat };

test('the six SigmaHQ rules compile', () => {
  assert.deepEqual(compilation.rejected, []);
  assert.equal(idOf.size, Object.keys(RULES).length);
});

for (const [shape, build] of Object.entries(SHAPES)) {
  test(`${shape}: log cleared, PsExec service, WMI consumer and xp_cmdshell fire their SigmaHQ rules`, () => {
    assert.deepEqual(fired(build(LOG_CLEARED)), [RULES.logCleared]);
    assert.deepEqual(fired(build(SERVICE_INSTALLED)), [RULES.psexecService]);
    assert.deepEqual(fired(build(WMI_CONSUMER)), [RULES.wmiSubscription]);
    assert.deepEqual(fired(build(MSSQL_OPTION_CHANGED)), [RULES.xpCmdshell]);
  });

  test(`${shape}: an exclusion reading Data keeps a rule quiet when one of the values matches it`, () => {
    assert.deepEqual(fired(build(mssqlFailedLogin('203.0.113.50'))), [RULES.externalLogon]);
    assert.deepEqual(fired(build(mssqlFailedLogin('10.20.30.40'))), []);
    assert.deepEqual(fired(build(msiTransaction('C:\\Users\\Public\\setup.msi'))), [RULES.msiSuspicious]);
    // Windows Update's health tools install from C:\Windows\TEMP: the rule's own exclusion.
    assert.deepEqual(fired(build(msiTransaction('C:\\Windows\\TEMP\\UpdHealthTools.msi'))), []);
    assert.deepEqual(fired(build(msiTransaction('C:\\Windows\\TEMP\\7z2408-x64.msi'))), [RULES.msiSuspicious]);
  });
}

test('Data|contains needs one of the values to hold the text: another value or the joined text does not', () => {
  const other = { ...MSSQL_OPTION_CHANGED, unnamed: ['Ad Hoc Distributed Queries', '0', '1'] };
  assert.deepEqual(fired(evtxDump(other)), []);
  // `xp_cmd` + `shell` across two values is not the text `xp_cmdshell`.
  assert.deepEqual(fired(evtxDump({ ...MSSQL_OPTION_CHANGED, unnamed: ['xp_cmd', 'shell'] })), []);
});
