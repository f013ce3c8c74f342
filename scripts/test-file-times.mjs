// A reporter for Node's test runner, beside the spec reporter in scripts/run-tests.mjs: it adds up
// the time each test file spent in its top-level tests and suites (hooks inside them included;
// the process start and imports not) and counts the results, and writes both as JSON to its
// destination. run-tests.mjs prints the longest files from it, to keep its SLOWEST list true.
// Node 20 hands the parent a file's events in bursts, so their arrival does not time the file.

export default async function* fileTimes(source) {
  const milliseconds = new Map();
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (file && nesting === 0) milliseconds.set(file, (milliseconds.get(file) ?? 0) + (details?.duration_ms ?? 0));
    if (details?.type === 'suite') continue;
    if (event.type === 'test:fail') counts.failed += 1;
    else if (event.data.skip || event.data.todo) counts.skipped += 1;
    else counts.passed += 1;
  }
  const files = [...milliseconds].map(([file, ms]) => ({ file, seconds: Math.round(ms / 100) / 10 }));
  files.sort((a, b) => b.seconds - a.seconds);
  yield `${JSON.stringify({ ...counts, files }, null, 1)}\n`;
}
