import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundLoop, backoffMs } from './background-loop.js';

/** A run that waits until released, counting its starts. */
function gatedRun() {
  let release: () => void = () => undefined;
  const state = { starts: 0, gate: Promise.resolve() };
  const hold = () => {
    state.gate = new Promise<void>((resolve) => (release = resolve));
  };
  return { state, hold, release: () => release() };
}

test('a poke during a run reruns it once, right after', async () => {
  const gated = gatedRun();
  gated.hold();
  const loop = new BackgroundLoop({
    run: async () => {
      gated.state.starts++;
      await gated.state.gate;
      return undefined;
    },
    idleMs: 60_000,
    backoff: { baseMs: 10, maxMs: 100 },
    onError: (error) => assert.fail(String(error)),
  });
  loop.start();
  await sleep(20);
  assert.equal(gated.state.starts, 1);
  loop.poke();
  loop.poke();
  gated.release();
  await sleep(30);
  assert.equal(gated.state.starts, 2, 'two pokes during the run: one more run');
  await sleep(30);
  assert.equal(gated.state.starts, 2, 'then it waits the idle time');
  await loop.stop();
});

test('stop waits for the run under way and runs no more', async () => {
  let finished = false;
  let starts = 0;
  const loop = new BackgroundLoop({
    run: async () => {
      starts++;
      await sleep(50);
      finished = true;
      return undefined;
    },
    idleMs: 0,
    backoff: { baseMs: 10, maxMs: 100 },
    onError: (error) => assert.fail(String(error)),
  });
  loop.start();
  await sleep(10);
  await loop.stop();
  assert.ok(finished, 'the run under way ended before stop resolved');
  await sleep(30);
  assert.equal(starts, 1);
  loop.poke();
  await sleep(10);
  assert.equal(starts, 1, 'a stopped loop ignores pokes');
});

test('failures are reported and back off, doubling to the cap, and a success resets it', async () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((n) => backoffMs(n, 10, 50)),
    [10, 20, 40, 50, 50],
  );
  const errors: unknown[] = [];
  const times: number[] = [];
  let fail = 3;
  const loop = new BackgroundLoop({
    run: () => {
      times.push(performance.now());
      if (fail-- > 0) return Promise.reject(new Error('down'));
      return Promise.resolve(60_000);
    },
    idleMs: 60_000,
    backoff: { baseMs: 20, maxMs: 1_000 },
    onError: (error) => errors.push(error),
  });
  loop.start();
  // About 140 ms of backoff; a loaded machine's timers may fire late, so wait for the runs, not a fixed time.
  const deadline = performance.now() + 5_000;
  while (times.length < 4 && performance.now() < deadline) await sleep(10);
  await sleep(30);
  await loop.stop();
  assert.equal(errors.length, 3);
  assert.equal(times.length, 4, 'three failures, then a success that asks for a long wait');
  const gaps = times.slice(1).map((at, i) => at - times[i]!);
  assert.ok(gaps[0]! >= 18 && gaps[1]! >= 38 && gaps[2]! >= 78, `gaps double: ${gaps.join(', ')}`);
  assert.ok(gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!);
});

test('after a success the next failure starts from the base again', async () => {
  const outcomes = [false, false, true, false];
  const waits: number[] = [];
  let last = performance.now();
  const loop = new BackgroundLoop({
    run: () => {
      const now = performance.now();
      waits.push(now - last);
      last = now;
      const ok = outcomes.shift();
      if (ok === undefined) return Promise.resolve(60_000);
      return ok ? Promise.resolve(0) : Promise.reject(new Error('down'));
    },
    idleMs: 60_000,
    backoff: { baseMs: 40, maxMs: 1_000 },
    onError: () => undefined,
  });
  loop.start();
  await sleep(300);
  await loop.stop();
  // Runs: fail, fail (after 40), ok (after 80), fail (at once), next (after 40, not 160).
  assert.equal(waits.length, 5);
  assert.ok(waits[4]! < 120, `backoff reset after a success: ${waits[4]}`);
});

test('a poke during the backoff after a failure waits for it', async () => {
  let starts = 0;
  const loop = new BackgroundLoop({
    run: () => {
      starts++;
      return Promise.reject(new Error('down'));
    },
    idleMs: 60_000,
    backoff: { baseMs: 60_000, maxMs: 60_000 },
    onError: () => undefined,
  });
  loop.start();
  await sleep(20);
  loop.poke();
  await sleep(20);
  assert.equal(starts, 1);
  await loop.stop();
});

test('a rest the run asks for is waited out whatever the pokes, then the loop runs again', async () => {
  const rests = [{ restMs: 100 }];
  let starts = 0;
  const loop: BackgroundLoop = new BackgroundLoop({
    run: () => {
      starts++;
      loop.poke();
      return Promise.resolve(rests.shift());
    },
    idleMs: 60_000,
    backoff: { baseMs: 10, maxMs: 100 },
    onError: (error) => assert.fail(String(error)),
  });
  loop.start();
  await sleep(20);
  loop.poke();
  await sleep(20);
  assert.equal(starts, 1, 'neither the poke during the run nor the one during the rest ended it');
  await sleep(120);
  assert.equal(starts, 2, 'the run after the rest');
  loop.poke();
  await sleep(20);
  assert.equal(starts, 3, 'a poke cuts the idle wait short');
  await loop.stop();
});

test('stop ends a rest at once: no run follows it', async () => {
  let starts = 0;
  const loop = new BackgroundLoop({
    run: () => {
      starts++;
      return Promise.resolve({ restMs: 200 });
    },
    idleMs: 60_000,
    backoff: { baseMs: 10, maxMs: 100 },
    onError: (error) => assert.fail(String(error)),
  });
  loop.start();
  await sleep(15);
  const stopping = performance.now();
  await loop.stop();
  assert.ok(performance.now() - stopping < 100, 'stop did not wait for the rest');
  await sleep(250);
  assert.equal(starts, 1);
});

test('a loop started with a delay runs first after it, or at a poke before then', async () => {
  let starts = 0;
  const loop = new BackgroundLoop({
    run: () => {
      starts++;
      return Promise.resolve(undefined);
    },
    idleMs: 60_000,
    backoff: { baseMs: 10, maxMs: 100 },
    onError: (error) => assert.fail(String(error)),
  });
  loop.start(40);
  await sleep(15);
  assert.equal(starts, 0, 'not at once');
  await sleep(50);
  assert.equal(starts, 1, 'after the delay');
  await loop.stop();
  const poked = new BackgroundLoop({
    run: () => {
      starts++;
      return Promise.resolve(undefined);
    },
    idleMs: 60_000,
    backoff: { baseMs: 10, maxMs: 100 },
    onError: (error) => assert.fail(String(error)),
  });
  poked.start(60_000);
  poked.poke();
  await sleep(15);
  assert.equal(starts, 2, 'a poke does not wait for the delay');
  await poked.stop();
});

test('a reporter that throws does not end the loop: the failed run is still retried', async () => {
  let runs = 0;
  const loop = new BackgroundLoop({
    run: () => {
      runs++;
      return runs === 1 ? Promise.reject(new Error('down')) : Promise.resolve(undefined);
    },
    idleMs: 60_000,
    backoff: { baseMs: 5, maxMs: 5 },
    onError: () => {
      throw new Error('the logger is closed');
    },
  });
  loop.start();
  const deadline = Date.now() + 5_000;
  while (runs < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  await loop.stop();
  assert.equal(runs, 2);
});
