// The ATT&CK catalogue: the bundled file loads, techniques and tactics are found however a rule
// spells them, and Sigma tags map to techniques and tactics without any tag being dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttackCatalogueError, loadAttackCatalogue, parseAttackCatalogue } from './attack.js';

const catalogue = loadAttackCatalogue();

test('the bundled catalogue is ATT&CK Enterprise 18.1 and is read once', () => {
  assert.equal(catalogue.version, '18.1');
  assert.equal(loadAttackCatalogue(), catalogue);
  assert.deepEqual(catalogue.technique('T1059.004'), {
    id: 'T1059.004',
    name: 'Unix Shell',
    tactics: ['execution'],
    parent: 'T1059',
  });
  assert.equal(catalogue.technique('t1190')?.name, 'Exploit Public-Facing Application');
  assert.equal(catalogue.technique('T9999'), undefined);
});

test('tactics are found by short name with hyphens or underscores, in any case', () => {
  assert.deepEqual(catalogue.tactic('initial-access'), {
    id: 'TA0001',
    shortname: 'initial-access',
    name: 'Initial Access',
  });
  assert.equal(catalogue.tactic('Command_And_Control')?.id, 'TA0011');
  assert.equal(catalogue.tactic('stealth'), undefined);
});

test('fromTags: technique tags take their name and tactics from the catalogue', () => {
  const tags = catalogue.fromTags(['attack.execution', 'attack.t1059.004', 'ATTACK.T1548.003']);
  assert.deepEqual(tags.techniques, [
    { id: 'T1059.004', name: 'Unix Shell', tactics: ['execution'], known: true },
    {
      id: 'T1548.003',
      name: 'Sudo and Sudo Caching',
      tactics: ['privilege-escalation', 'defense-evasion'],
      known: true,
    },
  ]);
  assert.deepEqual(tags.tactics, [{ shortname: 'execution', name: 'Execution', id: 'TA0002', known: true }]);
  assert.deepEqual(tags.other, []);
});

test('fromTags: both tactic spellings map to the same tactic, once', () => {
  const tags = catalogue.fromTags(['attack.initial_access', 'attack.command-and-control', 'attack.initial-access']);
  assert.deepEqual(tags.tactics, [
    { shortname: 'initial-access', name: 'Initial Access', id: 'TA0001', known: true },
    { shortname: 'command-and-control', name: 'Command and Control', id: 'TA0011', known: true },
  ]);
});

test('fromTags: unknown techniques and tactics are kept, marked unknown, never dropped', () => {
  const tags = catalogue.fromTags([
    'attack.t1999.001',
    'attack.stealth',
    'attack.Defense_Impairment',
    'attack.t1999.001',
  ]);
  assert.deepEqual(tags.techniques, [{ id: 'T1999.001', name: null, tactics: [], known: false }]);
  assert.deepEqual(tags.tactics, [
    { shortname: 'stealth', name: 'stealth', known: false },
    { shortname: 'defense-impairment', name: 'Defense_Impairment', known: false },
  ]);
});

test('fromTags: groups, software and other namespaces are other tags, as written', () => {
  const tags = catalogue.fromTags([
    'attack.g0016',
    'attack.S0154',
    'cve.2021-44228',
    'detection.threat-hunting',
    'attack.t1190',
  ]);
  assert.deepEqual(tags.other, ['attack.g0016', 'attack.S0154', 'cve.2021-44228', 'detection.threat-hunting']);
  assert.deepEqual(
    tags.techniques.map((technique) => technique.id),
    ['T1190'],
  );
  assert.deepEqual(catalogue.fromTags([]), { techniques: [], tactics: [], other: [] });
});

test('a catalogue file of the wrong shape is refused with the place named', () => {
  const base = {
    version: '1',
    tactics: [{ id: 'TA0002', shortname: 'execution', name: 'Execution' }],
    techniques: [] as unknown[],
  };
  assert.throws(
    () => parseAttackCatalogue([], 'x.json'),
    (error: unknown) => error instanceof AttackCatalogueError && error.message.includes('x.json'),
  );
  assert.throws(() => parseAttackCatalogue({ ...base, version: 18 }), /"version" must be a string/);
  assert.throws(() => parseAttackCatalogue({ ...base, tactics: {} }), /"tactics" must be a list/);
  assert.throws(
    () => parseAttackCatalogue({ ...base, techniques: [{ id: 'T1', name: 'x', tactics: ['nope'] }] }),
    /techniques\[0\]\.tactics names unknown tactic "nope"/,
  );
  assert.throws(
    () => parseAttackCatalogue({ ...base, techniques: [{ id: '', name: 'x', tactics: [] }] }),
    /techniques\[0\]\.id must be a non-empty string/,
  );
  const small = parseAttackCatalogue({
    ...base,
    techniques: [{ id: 't1059', name: 'Command and Scripting Interpreter', tactics: ['execution'] }],
  });
  assert.equal(small.technique('T1059')?.name, 'Command and Scripting Interpreter');
});
