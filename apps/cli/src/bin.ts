#!/usr/bin/env node
import { endQuietlyOnClosedStdout, loadDotEnv } from '@osharm/judge-cli';
import { runCli } from './program';

endQuietlyOnClosedStdout();

loadDotEnv();

runCli(process.argv.slice(2)).then(
  code => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('osharm: internal error (please report it):', error);
    process.exitCode = 70;
  },
);
