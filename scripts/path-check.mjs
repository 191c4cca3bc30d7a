#!/usr/bin/env node
// The full path check of issue 10: makes stand-in files for every download URL of the dataset
// (scripts/make-asset-stand-ins.mjs), then runs `osharm tasks check --inject --offline` over every
// index file of the dataset with no agent and no network, and prints its table (runs through
// setup, faithful, per domain and category, seconds per run) and the unfaithful runs' reasons.
//
//   node scripts/path-check.mjs [--dataset DIR] [--out DIR] [-- extra tasks-check flags]
//
// --dataset: default ../shared/osharm-dataset/evaluation_examples beside the repo. --out: default
// ./path-check (per run folders, path-check.jsonl with every --json line). Exit code: the check's.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dataset: {
      type: 'string',
      default: join(root, '..', 'shared', 'osharm-dataset', 'evaluation_examples'),
    },
    out: { type: 'string', default: 'path-check' },
  },
});
const dataset = resolve(values.dataset);
const out = resolve(values.out);
await mkdir(out, { recursive: true });

const run = (args, onLine) =>
  new Promise((done, fail) => {
    const child = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout }).on('line', onLine);
    child.on('error', fail);
    child.on('close', code => done(code ?? 1));
  });

const standIns = join(out, 'asset-stand-ins');
const made = await run(
  [
    process.execPath,
    join(root, 'scripts', 'make-asset-stand-ins.mjs'),
    '--dataset',
    dataset,
    '--out',
    standIns,
  ],
  line => process.stderr.write(`${line}\n`),
);
if (made !== 0) process.exit(made);

const indexes = readdirSync(dataset)
  .filter(name => /^test_.*\.json$/.test(name))
  .sort()
  .flatMap(name => ['--test-all-meta-path', join(dataset, name)]);
const log = createWriteStream(join(out, 'path-check.jsonl'));
let summary;
let count = 0;
const code = await run(
  [
    join(root, 'osharm'),
    'tasks',
    'check',
    '--test-config-base-dir',
    dataset,
    ...indexes,
    '--inject',
    '--asset-map',
    join(standIns, 'asset-map.json'),
    '--cache-dir',
    join(out, 'cache'),
    '--offline',
    '--out',
    join(out, 'runs'),
    '--json',
    ...positionals,
  ],
  line => {
    log.write(`${line}\n`);
    const parsed = JSON.parse(line);
    if (parsed.summary) summary = parsed.summary;
    else {
      count += 1;
      process.stderr.write(
        `[${count}] ${parsed.setup} ${parsed.faithful ? 'faithful' : 'unfaithful'} ${parsed.run} (${parsed.seconds} s)\n`,
      );
    }
  },
);
log.end();
if (!summary) {
  process.stderr.write(
    `tasks check ended (exit ${code}) without a summary; lines in ${out}/path-check.jsonl\n`,
  );
  process.exit(code || 1);
}
const rows = [
  ...summary.by_cell.map(cell => [...cell.cell.split(' '), cell]),
  ['all', 'all', summary],
].map(([domain, category, t]) => [
  domain,
  category,
  String(t.runs),
  String(t.through_setup),
  String(t.faithful),
  t.seconds_per_run.toFixed(1),
]);
const header = ['domain', 'category', 'runs', 'through setup', 'faithful', 's/run'];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map(row => row[column].length)),
);
for (const row of [header, ...rows])
  process.stdout.write(
    `${row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd()}\n`,
  );
if (summary.unfaithful.length > 0) {
  process.stdout.write('\nnot faithful:\n');
  for (const item of summary.unfaithful)
    process.stdout.write(`  ${item.run}: ${item.reasons.join('; ')}\n`);
}
process.exit(code);
