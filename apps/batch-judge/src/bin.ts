#!/usr/bin/env node
import { loadDotEnv, runBatchJudge } from '@osharm/judge-cli';

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
