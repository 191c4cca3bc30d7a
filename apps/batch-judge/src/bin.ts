#!/usr/bin/env node
import { endQuietlyOnClosedStdout, loadDotEnv, runBatchJudge } from '@osharm/judge-cli';

endQuietlyOnClosedStdout();

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
