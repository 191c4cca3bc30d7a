#!/usr/bin/env node
import { loadDotEnv, runBatchJudge } from '@osharm/judge-cli';

// A reader that stops early (`… --help | head`) closes the pipe: end quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

loadDotEnv();

runBatchJudge(process.argv.slice(2)).then(
  code => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('osharm-batch-judge: internal error (please report it):', error);
    process.exitCode = 70;
  },
);
