// The supervisor: dependency order on start, the reverse on stop (side by side where nothing
// waits), a failed start stopping what had started, timings by module, and cycles refused.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { selectModules, startOrder, Supervisor, type Module } from './supervisor.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Modules that write `start name` / `stop name` to one journal, each taking a tick. */
function recorded(specs: { name: string; dependsOn?: string[]; failStart?: boolean }[]) {
  const journal: string[] = [];
  const modules: Module[] = specs.map(({ name, dependsOn, failStart }) => ({
    name,
    dependsOn,
    start: async () => {
      await tick();
      if (failStart) throw new Error(`${name} cannot start`);
      journal.push(`start ${name}`);
    },
    stop: async () => {
      journal.push(`stop ${name} begins`);
      await tick();
      journal.push(`stop ${name}`);
    },
  }));
  return { journal, modules };
}

describe('supervisor', () => {
  test('starts dependencies first and stops in reverse', async () => {
    const { journal, modules } = recorded([
      { name: 'http', dependsOn: ['queue'] },
      { name: 'queue', dependsOn: ['writer'] },
      { name: 'writer' },
    ]);
    const supervisor = new Supervisor(modules);
    await supervisor.start();
    assert.deepEqual(journal, ['start writer', 'start queue', 'start http']);
    journal.length = 0;
    await supervisor.stop();
    assert.deepEqual(
      journal.filter((line) => !line.endsWith('begins')),
      ['stop http', 'stop queue', 'stop writer'],
    );
  });

  test('modules nothing waits on stop side by side, before what they depend on', async () => {
    const { journal, modules } = recorded([
      { name: 'writer' },
      { name: 'detection', dependsOn: ['writer'] },
      { name: 'http', dependsOn: ['writer'] },
    ]);
    const supervisor = new Supervisor(modules);
    await supervisor.start();
    journal.length = 0;
    await supervisor.stop();
    // Both began before either finished; the writer began only after both had stopped.
    assert.deepEqual(journal.slice(0, 2).sort(), ['stop detection begins', 'stop http begins']);
    assert.ok(journal.indexOf('stop writer begins') > journal.indexOf('stop detection'));
    assert.ok(journal.indexOf('stop writer begins') > journal.indexOf('stop http'));
  });

  test('a failed start stops the modules already started, and rethrows', async () => {
    const { journal, modules } = recorded([
      { name: 'writer' },
      { name: 'queue', dependsOn: ['writer'] },
      { name: 'http', dependsOn: ['queue'], failStart: true },
      { name: 'retention', dependsOn: ['http'] },
    ]);
    await assert.rejects(new Supervisor(modules).start(), /http cannot start/);
    assert.deepEqual(
      journal.filter((line) => !line.endsWith('begins')),
      ['start writer', 'start queue', 'stop queue', 'stop writer'],
    );
  });

  test('reports how long each module took to stop, and stops once', async () => {
    const { modules } = recorded([{ name: 'writer' }, { name: 'http', dependsOn: ['writer'] }]);
    const supervisor = new Supervisor(modules);
    await supervisor.start();
    const times = await supervisor.stop();
    assert.deepEqual(Object.keys(times).sort(), ['http', 'writer']);
    for (const ms of Object.values(times)) assert.ok(ms >= 4, `${ms} ms`);
    assert.equal(await supervisor.stop(), times);
  });

  test('a module failing to stop does not keep the others running', async () => {
    const { journal, modules } = recorded([{ name: 'writer' }, { name: 'http', dependsOn: ['writer'] }]);
    modules[1]!.stop = () => Promise.reject(new Error('http would not close'));
    const supervisor = new Supervisor(modules);
    await supervisor.start();
    await assert.rejects(supervisor.stop(), /http would not close/);
    assert.ok(journal.includes('stop writer'));
  });

  test('refuses a dependency cycle, an unknown dependency and a repeated name', () => {
    const cycle = [
      { name: 'a', dependsOn: ['b'] },
      { name: 'b', dependsOn: ['c'] },
      { name: 'c', dependsOn: ['a'] },
    ];
    assert.throws(() => new Supervisor(cycle), /cycle: a → b → c → a/);
    assert.throws(() => startOrder([{ name: 'a', dependsOn: ['z'] }]), /depends on z/);
    assert.throws(() => startOrder([{ name: 'a' }, { name: 'a' }]), /two modules are named a/);
  });

  test('a role leaves modules out, with the dependencies on them', () => {
    const selected = selectModules(
      [{ name: 'writer' }, { name: 'detection', dependsOn: ['writer'] }, { name: 'http', dependsOn: ['detection'] }],
      (name) => name !== 'detection',
    );
    assert.deepEqual(
      startOrder(selected).map((module) => [module.name, module.dependsOn ?? []]),
      [
        ['writer', []],
        ['http', []],
      ],
    );
  });
});
