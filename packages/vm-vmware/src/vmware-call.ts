import { setTimeout as delay } from 'node:timers/promises';
import { VmProviderError, type ProviderCallOptions } from '@osharm/desktop-env';
import type { ResolvedVmwareSettings, VmwareWaitTarget } from './vmware-provider-settings';
import { emit, formatSeconds } from './vmware-vmrun';

// Bounded provider calls and waits: a call's abort / overall timeout, and the polled waits (VM
// running, guest IP, guest server) that end in a VmProviderError naming what they waited for.

/** State of one provider call: its signal and what it is doing (for abort / timeout messages). */
export interface CallScope {
  readonly signal: AbortSignal;
  phase: string;
}

/**
 * One try of a wait: its value, or its answer. `cutShort` marks an answer from a call that the
 * wait's own deadline killed: a worse last answer than the one before it.
 */
export type Attempt<T> =
  { readonly value: T } | { readonly lastAnswer: string; readonly cutShort?: boolean };

const PHASES: Record<VmwareWaitTarget, string> = {
  'vm-running': 'waiting for the VM to run',
  'guest-ip': 'waiting for a valid guest IP',
  'guest-server': 'waiting for the guest server',
};

export const quote = (text: string) =>
  JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** Runs one operation with the call's signal, turning an abort or the overall timeout into a VmProviderError. */
export async function runCall<T>(
  vmxPath: string | undefined,
  operation: string,
  options: ProviderCallOptions,
  run: (scope: CallScope) => Promise<T>,
): Promise<T> {
  const user = options.abortSignal;
  const overall =
    options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const signals = [user, overall].filter((signal): signal is AbortSignal => signal !== undefined);
  const scope: CallScope = {
    signal: signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals),
    phase: 'preparing',
  };
  const vm = `VM ${vmxPath ?? '(no vmxPath)'}`;
  try {
    if (user?.aborted) throw user.reason;
    return await run(scope);
  } catch (error) {
    if (user?.aborted) {
      throw new VmProviderError({
        providerId: 'vmware',
        message: `${operation} of ${vm} was aborted while ${scope.phase}`,
        cause: user.reason,
      });
    }
    if (overall?.aborted) {
      throw new VmProviderError({
        providerId: 'vmware',
        isRetryable: true,
        message: `${operation} of ${vm} did not finish within ${formatSeconds(options.timeoutMs!)} (options.timeoutMs; it was ${scope.phase})`,
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Repeats `attempt` (given the ms left) every `pollIntervalMs` until it yields a value, or throws
 * a retryable VmProviderError when `timeoutMs` runs out.
 */
export async function waitFor<T>(
  settings: Pick<ResolvedVmwareSettings, 'logger' | 'pollIntervalMs'>,
  scope: CallScope,
  target: VmwareWaitTarget,
  vmxPath: string,
  timeoutMs: number,
  attempt: (remainingMs: number) => Promise<Attempt<T>>,
): Promise<T> {
  const { logger, pollIntervalMs } = settings;
  scope.phase = PHASES[target];
  emit(logger, { type: 'wait-start', target, vmxPath, timeoutMs });
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  let lastAnswer: string | undefined;
  let ok = false;
  try {
    for (;;) {
      const outcome = await attempt(Math.max(1, deadline - Date.now()));
      if ('value' in outcome) {
        ok = true;
        return outcome.value;
      }
      if (!(outcome.cutShort && lastAnswer !== undefined)) lastAnswer = outcome.lastAnswer;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new VmProviderError({
          providerId: 'vmware',
          isRetryable: true,
          message: timeoutMessage(target, vmxPath, timeoutMs, lastAnswer),
        });
      }
      await delay(Math.min(pollIntervalMs, remaining), undefined, { signal: scope.signal });
    }
  } finally {
    emit(logger, {
      type: 'wait-end',
      target,
      vmxPath,
      durationMs: Date.now() - startedAt,
      ok,
      ...(lastAnswer === undefined ? {} : { lastAnswer }),
    });
  }
}

function timeoutMessage(
  target: VmwareWaitTarget,
  vmxPath: string,
  timeoutMs: number,
  lastAnswer: string,
): string {
  const within = `within ${formatSeconds(timeoutMs)} (last answer: ${quote(lastAnswer)})`;
  switch (target) {
    case 'vm-running':
      return `VM ${vmxPath} was not listed as running by "vmrun list" ${within} (timeouts.start)`;
    case 'guest-ip':
      return `VM ${vmxPath} did not report a valid guest IP ${within} (timeouts.ip). Are VMware Tools running in the guest? A VM that "vmrun list" shows as running but that never gets an IP is a known VMware state: restart VMware, or stop the VM with "vmrun stop <vmx> hard"`;
    case 'guest-server':
      return `the guest server of VM ${vmxPath} did not answer 200 on /screenshot ${within} (timeouts.serverReady)`;
  }
}
