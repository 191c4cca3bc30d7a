// Sums vitest's per-suite "Tests  ..." summary lines from a turbo log (live or replayed from cache)
// into the one plain line CI reads: "N passed, N failed[, N skipped]". Before it, the failure blocks of
// every suite that failed (vitest's "Failed Tests" / "Failed Suites" / "Unhandled Errors" sections, at
// most MAX_FAILURE_LINES lines each): a log kept only by its tail still names what failed and why.
import { readFileSync } from 'node:fs';

const MAX_FAILURE_LINES = 40;
// eslint-disable-next-line no-control-regex -- strips ANSI colour codes
const text = readFileSync(process.argv[2] ?? 0, 'utf8').replace(/\x1b\[[0-9;]*m/g, '');
const totals = { passed: 0, failed: 0, skipped: 0 };
let suites = 0;
/** Per turbo task prefix ("@osharm/x:test"), the lines of its failure sections. */
const failures = new Map();
const inFailureSection = new Set();
for (const rawLine of text.split('\n')) {
  const prefix = /^(\S+:test):/.exec(rawLine)?.[1] ?? '';
  const line = rawLine.replace(/^[^:]*:test:\s?/, '');
  if (/⎯{2,}\s*(Failed Tests|Failed Suites|Unhandled Errors?)\b/.test(line))
    inFailureSection.add(prefix);
  if (/^\s*Test Files\s/.test(line)) inFailureSection.delete(prefix);
  if (inFailureSection.has(prefix)) {
    const kept = failures.get(prefix) ?? [];
    if (kept.length < MAX_FAILURE_LINES) kept.push(line);
    else if (kept.length === MAX_FAILURE_LINES) kept.push('… (cut; the full log has the rest)');
    failures.set(prefix, kept);
  }
  const match = /^\S*\s*Tests\s+(.*)\(\d+\)\s*$/.exec(line);
  if (!match) continue;
  suites += 1;
  for (const part of match[1].split('|')) {
    const count = /(\d+)\s+(passed|failed|skipped|todo)/.exec(part);
    if (!count) continue;
    const kind = count[2] === 'todo' ? 'skipped' : count[2];
    totals[kind] += Number(count[1]);
  }
}
for (const [prefix, lines] of failures) {
  console.log(`\n--- failures in ${prefix || 'the log'} ---`);
  console.log(lines.filter(line => line.trim() !== '').join('\n'));
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
