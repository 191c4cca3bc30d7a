import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { SetupStepOf } from '@osharm/task-schema';
import type { ExecuteResult } from './guest-client';
import { sleep } from './backoff';
import { substituteSetupPlaceholders } from './setup-placeholders';
import { errorMessage, StepFailure, type StepRun } from './setup-step-run';

/**
 * `execute` / `command`: `/setup/execute`, with upstream's placeholders. A failed request is a
 * warning, as upstream only logs it; with `until`, polling ends with a warning after 5 failed
 * requests (upstream ends it silently). A command's exit code is never a failure. Refused (fatal):
 * `stdout` / `stderr` names that leave the cache dir, and an `until` condition that does not hold
 * within the polling timeout (upstream would poll for ever).
 */
export async function executeStep(
  step: SetupStepOf<'execute'> | SetupStepOf<'command'>,
  run: StepRun,
): Promise<string> {
  const { client, abortSignal } = run.context;
  const parameters = step.parameters;
  const screen = run.context.screen ?? run.endpoint.screen ?? { width: 1920, height: 1080 };
  const command = substituteSetupPlaceholders(parameters.command, {
    clientPassword: run.context.clientPassword ?? 'password',
    screenWidth: screen.width,
    screenHeight: screen.height,
  });
  const outputFiles = {
    stdout: parameters.stdout ? cacheOutputPath(run.cacheDir, parameters.stdout, 'stdout') : '',
    stderr: parameters.stderr ? cacheOutputPath(run.cacheDir, parameters.stderr, 'stderr') : '',
  };
  const until =
    parameters.until && Object.keys(parameters.until).length > 0 ? parameters.until : undefined;
  const untilSettings = run.context.settings?.until;
  const intervalMs = untilSettings?.intervalMs ?? 300;
  const deadline = performance.now() + (untilSettings?.timeoutMs ?? 120_000);
  const maxFailures = untilSettings?.maxFailures ?? 5;
  let failures = 0;
  let polls = 0;
  let last: ExecuteResult | undefined;
  for (;;) {
    polls++;
    let result: ExecuteResult | undefined;
    try {
      result = await client.execute(command, {
        shell: parameters.shell ?? false,
        setup: true,
        abortSignal,
      });
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      failures++;
      if (!until) {
        run.warn(`the command request failed: ${errorMessage(error)}`);
        return 'request failed (a warning, as upstream)';
      }
      if (failures >= maxFailures) {
        run.warn(
          `polling for ${JSON.stringify(until)} ended after ${failures} failed request(s): ${errorMessage(error)}`,
        );
        return `polling ended after ${failures} failed request(s)`;
      }
      run.log('warn', `execute request failed (${errorMessage(error)}); polling again`);
    }
    if (result) {
      last = result;
      await writeOutputs(outputFiles, result);
      if (!until) return `exit code ${result.returncode}`;
      if (untilHolds(until, result)) return `condition held after ${polls} poll(s)`;
    }
    if (performance.now() + intervalMs > deadline) {
      throw new StepFailure(
        `failed: the until condition ${JSON.stringify(until)} did not hold within ${
          untilSettings?.timeoutMs ?? 120_000
        } ms (${polls} poll(s)${
          last
            ? `; last exit code ${last.returncode}, stdout ${JSON.stringify(excerpt(last.output))}`
            : ''
        })`,
      );
    }
    await sleep(intervalMs, abortSignal);
  }
}

function untilHolds(
  until: { returncode?: number; stdout?: string; stderr?: string },
  result: ExecuteResult,
): boolean {
  return (
    (until.returncode !== undefined && result.returncode === until.returncode) ||
    (until.stdout !== undefined && result.output.includes(until.stdout)) ||
    (until.stderr !== undefined && result.error.includes(until.stderr))
  );
}

/** `stdout` / `stderr` name a file in the cache dir; refuse names that would leave it. */
function cacheOutputPath(cacheDir: string, name: string, field: string): string {
  if (isAbsolute(name) || name.split(/[\\/]/).includes('..')) {
    throw new StepFailure(
      `cannot write ${field} to "${name}": the name must be a relative path inside the cache directory`,
    );
  }
  return join(cacheDir, name);
}

async function writeOutputs(
  files: { stdout: string; stderr: string },
  result: ExecuteResult,
): Promise<void> {
  for (const [path, text] of [
    [files.stdout, result.output],
    [files.stderr, result.error],
  ] as const) {
    if (!path) continue;
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
  }
}

/** `execute_with_verification` (U26): fatal on failure, as upstream raises on a non-200. */
export async function executeWithVerificationStep(
  step: SetupStepOf<'execute_with_verification'>,
  run: StepRun,
): Promise<string> {
  const { client, abortSignal } = run.context;
  if (!client.executeWithVerification) {
    throw new StepFailure(
      'cannot run: the guest client has no executeWithVerification (an older guest protocol)',
    );
  }
  const parameters = step.parameters;
  const result = await client.executeWithVerification(parameters.command, {
    shell: parameters.shell ?? false,
    ...(parameters.verification ? { verification: parameters.verification } : {}),
    ...(parameters.max_wait_time === undefined ? {} : { maxWaitTime: parameters.max_wait_time }),
    ...(parameters.check_interval === undefined
      ? {}
      : { checkInterval: parameters.check_interval }),
    abortSignal,
  });
  return `verification ${result.verification || 'done'} after ${result.wait_time} s`;
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
