// Sums vitest's per-suite "Tests  ..." summary lines from a turbo log (live or replayed from cache)
// into the one plain line CI reads: "N passed, N failed[, N skipped]".
import { readFileSync } from 'node:fs';

// eslint-disable-next-line no-control-regex -- strips ANSI colour codes
const text = readFileSync(process.argv[2] ?? 0, 'utf8').replace(/\x1b\[[0-9;]*m/g, '');
const totals = { passed: 0, failed: 0, skipped: 0 };
let suites = 0;
for (const line of text.split('\n')) {
  const match = /^\S*\s*Tests\s+(.*)\(\d+\)\s*$/.exec(line.replace(/^[^:]*:test:\s?/, ''));
  if (!match) continue;
  suites += 1;
  for (const part of match[1].split('|')) {
    const count = /(\d+)\s+(passed|failed|skipped|todo)/.exec(part);
    if (!count) continue;
    const kind = count[2] === 'todo' ? 'skipped' : count[2];
    totals[kind] += Number(count[1]);
  }
}
if (suites === 0) {
  console.log('0 passed, 1 failed');
  console.error('sum-test-results: no vitest summary found in the log');
  process.exit(1);
}
console.log(
  `${totals.passed} passed, ${totals.failed} failed` +
    (totals.skipped ? `, ${totals.skipped} skipped` : ''),
);
