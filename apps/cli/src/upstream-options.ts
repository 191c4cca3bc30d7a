import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  loadUpstreamTexts,
  RUN_DEFAULTS,
  UPSTREAM_ENV,
  upstreamDatasetDir,
  type RunFlags,
} from '@osharm/runner';
import type { CliIo } from './cli-io';

/**
 * `--upstream` (else OSHARM_UPSTREAM): the checkout is read before anything else (a bad one: one
 * line, exit 2), and its evaluation_examples/ is the dataset unless one is given.
 */
export function withUpstream<
  F extends Pick<RunFlags, 'upstream' | 'testConfigBaseDir' | 'testAllMetaPath'>,
>(flags: F, command: Command, io: CliIo): F {
  const upstream = flags.upstream ?? (io.env[UPSTREAM_ENV] || undefined);
  if (upstream === undefined) return flags;
  loadUpstreamTexts(resolve(io.cwd, upstream));
  const given = (name: string) => command.getOptionValueSource(name) === 'cli';
  return {
    ...flags,
    upstream,
    ...(given('testConfigBaseDir')
      ? {}
      : { testConfigBaseDir: upstreamDatasetDir(resolve(io.cwd, upstream)) }),
    ...(given('testAllMetaPath')
      ? {}
      : { testAllMetaPath: resolve(io.cwd, upstream, RUN_DEFAULTS.testAllMetaPath) }),
  };
}
