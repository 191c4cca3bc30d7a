import { parseExecuteResult, parseJsonObject, requireNumber, stringOr } from './guest-answers';
import type {
  ExecuteResult,
  ExecuteVerification,
  ExecuteWithVerificationResult,
  GuestCallOptions,
  RunBashResult,
  RunPythonResult,
} from './guest-client';
import type { CallSpec } from './guest-transport';

// Command calls: execute (with verification), launch, run_python, run_bash_script.

export function executeCall(
  command: string | readonly string[],
  options?: GuestCallOptions & { shell?: boolean; setup?: boolean },
): CallSpec<ExecuteResult> {
  return {
    operation: 'execute',
    method: 'POST',
    path: options?.setup ? '/setup/execute' : '/execute',
    body: { kind: 'json', value: { command, shell: options?.shell ?? false } },
    idempotent: false,
    parse: answer => parseExecuteResult(parseJsonObject(answer)),
  };
}

export function executeWithVerificationCall(
  command: string | readonly string[],
  options?: GuestCallOptions & {
    shell?: boolean;
    verification?: ExecuteVerification;
    maxWaitTime?: number;
    checkInterval?: number;
  },
): CallSpec<ExecuteWithVerificationResult> {
  const maxWaitTime = options?.maxWaitTime ?? 10;
  return {
    operation: 'executeWithVerification',
    method: 'POST',
    path: '/setup/execute_with_verification',
    body: {
      kind: 'json',
      value: {
        command,
        shell: options?.shell ?? false,
        verification: options?.verification ?? {},
        max_wait_time: maxWaitTime,
        check_interval: options?.checkInterval ?? 1,
      },
    },
    idempotent: false,
    defaultTimeoutMs: (maxWaitTime + 10) * 1000,
    parse: answer => {
      const json = parseJsonObject(answer);
      return {
        ...parseExecuteResult(json),
        verification: String(json.verification ?? ''),
        wait_time: typeof json.wait_time === 'number' ? json.wait_time : 0,
      };
    },
  };
}

export function launchCall(
  command: string | readonly string[],
  options?: GuestCallOptions & { shell?: boolean },
): CallSpec<void> {
  return {
    operation: 'launch',
    method: 'POST',
    path: '/setup/launch',
    body: { kind: 'json', value: { command, shell: options?.shell ?? false } },
    idempotent: false,
    parse: () => undefined,
  };
}

export function runPythonCall(code: string): CallSpec<RunPythonResult> {
  return {
    operation: 'runPython',
    method: 'POST',
    path: '/run_python',
    body: { kind: 'json', value: { code } },
    idempotent: false,
    parse: answer => {
      const json = parseJsonObject(answer);
      return {
        status: json.status === 'success' ? 'success' : 'error',
        message: stringOr(json.message),
        output: stringOr(json.output),
        error: stringOr(json.error),
        return_code: requireNumber(json, 'return_code'),
      };
    },
  };
}

export function runBashScriptCall(
  script: string,
  options?: GuestCallOptions & { scriptTimeoutSeconds?: number; workingDir?: string },
): CallSpec<RunBashResult> {
  const scriptTimeoutSeconds = options?.scriptTimeoutSeconds ?? 30;
  return {
    operation: 'runBashScript',
    method: 'POST',
    path: '/run_bash_script',
    body: {
      kind: 'json',
      value: {
        script,
        timeout: scriptTimeoutSeconds,
        ...(options?.workingDir === undefined ? {} : { working_dir: options.workingDir }),
      },
    },
    idempotent: false,
    defaultTimeoutMs: (scriptTimeoutSeconds + 100) * 1000,
    parse: answer => {
      const json = parseJsonObject(answer);
      return {
        status: json.status === 'success' ? 'success' : 'error',
        output: stringOr(json.output),
        error: stringOr(json.error),
        returncode: requireNumber(json, 'returncode'),
      };
    },
  };
}
