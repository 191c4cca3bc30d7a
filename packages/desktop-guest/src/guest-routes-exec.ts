import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  expandUser,
  type GuestContext,
  type Handler,
  HttpError,
  readJson,
  type Routes,
  sendJson,
  sendText,
} from './guest-http';
import { launchDetached, ProcessTimeoutError, runProcess } from './guest-process';
import { listWindows } from './guest-routes-window';
import { pythonListRepr, shlexSplit } from './guest-shlex';

function commandFrom(
  body: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { shell: boolean; command: string | string[] } {
  const shell = Boolean(body.shell);
  let command = body.command ?? (shell ? '' : []);
  if (typeof command === 'string' && !shell) command = shlexSplit(command);
  if (Array.isArray(command)) {
    command = command.map(part => {
      const text = String(part);
      return text.startsWith('~/') ? expandUser(text, env) : text;
    });
  } else if (typeof command !== 'string') {
    throw new HttpError(400, { status: 'error', message: 'command must be a string or a list' });
  }
  return { shell, command: command as string | string[] };
}

function argvFor(shell: boolean, command: string | string[]): string[] {
  if (!shell) return command as string[];
  // Python's Popen(shell=True): a string runs as `sh -c string`; a list as `sh -c list[0] list[1:]`.
  return typeof command === 'string' ? ['/bin/sh', '-c', command] : ['/bin/sh', '-c', ...command];
}

/**
 * Creates the guest server's request handler: upstream OSWorld's in-VM HTTP protocol
 * (reference/osworld-harness.md §1.2) backed by the local X display, AT-SPI and the shell.
/** `/execute`, `/execute_with_verification`, `/setup/launch`, `/run_python`, `/run_bash_script`. */
export function execRoutes(context: GuestContext): Routes {
  const { env, home, agent, spawned: record } = context;

  const execute: Handler = async (request, response) => {
    const body = await readJson(request);
    let shell: boolean;
    let command: string | string[];
    try {
      ({ shell, command } = commandFrom(body, env));
    } catch (error) {
      if (error instanceof HttpError) throw error;
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
      return;
    }
    try {
      const result = await runProcess(argvFor(shell, command), {
        agent,
        record,
        timeoutMs: 120_000,
        cwd: home,
        env,
        displayCommand: command,
      });
      sendJson(response, 200, {
        status: 'success',
        output: result.stdout,
        error: result.stderr,
        returncode: result.returncode,
      });
    } catch (error) {
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
    }
  };

  async function executeWithVerification(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const body = await readJson(request);
    const { shell, command } = commandFrom(body, env);
    const verification = (body.verification ?? {}) as {
      window_exists?: string;
      command_success?: string;
    };
    const maxWait = (typeof body.max_wait_time === 'number' ? body.max_wait_time : 10) * 1000;
    const interval = (typeof body.check_interval === 'number' ? body.check_interval : 1) * 1000;
    let result;
    try {
      result = await runProcess(argvFor(shell, command), {
        agent,
        record,
        timeoutMs: 120_000,
        cwd: home,
        env,
        displayCommand: command,
      });
    } catch (error) {
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
      return;
    }
    const started = Date.now();
    const fields = { output: result.stdout, error: result.stderr, returncode: result.returncode };
    while (Date.now() - started <= maxWait) {
      let passed = true;
      if (verification.window_exists) {
        const wanted = verification.window_exists.toLowerCase();
        passed = (await listWindows(env)).some(line => line.toLowerCase().includes(wanted));
      }
      if (passed && verification.command_success) {
        const check = await runProcess(['/bin/sh', '-c', verification.command_success], {
          agent,
          timeoutMs: 30_000,
          env,
        }).catch(() => undefined);
        passed = check?.returncode === 0;
      }
      if (passed) {
        sendJson(response, 200, {
          status: 'success',
          ...fields,
          verification: 'passed',
          wait_time: (Date.now() - started) / 1000,
        });
        return;
      }
      await new Promise(resolve => setTimeout(resolve, interval));
    }
    sendJson(response, 500, {
      status: 'verification_failed',
      ...fields,
      message: `Verification failed after ${maxWait / 1000} seconds`,
    });
  }

  return {
    '/execute': { methods: ['POST'], handle: execute },
    '/setup/execute': { methods: ['POST'], handle: execute },
    '/execute_with_verification': { methods: ['POST'], handle: executeWithVerification },
    '/setup/execute_with_verification': { methods: ['POST'], handle: executeWithVerification },
    '/setup/launch': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        try {
          const { shell, command } = commandFrom(body, env);
          context.listeners?.launchedByHarness(
            await launchDetached(argvFor(shell, command), { agent, record, cwd: home, env }),
          );
          const shown =
            typeof command === 'string'
              ? command
              : shell
                ? pythonListRepr(command)
                : command.join(' ');
          sendText(response, 200, `${shown} launched successfully`);
        } catch (error) {
          if (error instanceof HttpError) throw error;
          sendJson(response, 500, { status: 'error', message: (error as Error).message });
        }
      },
    },
    '/run_python': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        const code = body.code;
        if (typeof code !== 'string' || !code) {
          sendJson(response, 400, { status: 'error', message: 'Code not supplied!' });
          return;
        }
        const file = join(tmpdir(), `python_exec_${randomUUID().replace(/-/g, '')}.py`);
        try {
          await writeFile(file, code);
          const result = await runProcess(['/usr/bin/python3', file], {
            agent,
            record,
            timeoutMs: 30_000,
            cwd: home,
            env,
          });
          const message =
            result.stdout +
            (result.stderr ? (result.stdout ? `\n${result.stderr}` : result.stderr) : '');
          sendJson(response, 200, {
            status: result.returncode === 0 ? 'success' : 'error',
            message,
            need_more: false,
            output: result.stdout,
            error: result.stderr,
            return_code: result.returncode,
          });
        } catch (error) {
          if (error instanceof ProcessTimeoutError) {
            sendJson(response, 500, {
              status: 'error',
              message: 'Execution timeout: Code took too long to execute',
              error: 'TimeoutExpired',
              need_more: false,
              output: null,
            });
          } else {
            sendJson(response, 500, {
              status: 'error',
              message: `Execution error: ${(error as Error).message}`,
              error: (error as Error).message,
              need_more: false,
              output: null,
            });
          }
        } finally {
          await rm(file, { force: true });
        }
      },
    },
    '/run_bash_script': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        let script = typeof body.script === 'string' ? body.script : '';
        const timeout = typeof body.timeout === 'number' && body.timeout > 0 ? body.timeout : 100;
        if (!script) {
          sendJson(response, 400, {
            status: 'error',
            output: 'Script not supplied!',
            error: '',
            returncode: -1,
          });
          return;
        }
        let cwd = home;
        if (typeof body.working_dir === 'string' && body.working_dir) {
          cwd = expandUser(body.working_dir, env);
          if (!existsSync(cwd)) {
            sendJson(response, 400, {
              status: 'error',
              output: `Working directory does not exist: ${cwd}`,
              error: '',
              returncode: -1,
            });
            return;
          }
        }
        if (!script.includes('#!/bin/bash')) script = `#!/bin/bash\n\n${script}`;
        const file = join(tmpdir(), `osharm_script_${randomUUID()}.sh`);
        try {
          await writeFile(file, script, { mode: 0o755 });
          const result = await runProcess(['/bin/bash', file], {
            agent,
            record,
            timeoutMs: timeout * 1000,
            cwd,
            env: { ...env, TERM: 'xterm' },
            mergeStderr: true,
          });
          sendJson(response, 200, {
            status: result.returncode === 0 ? 'success' : 'error',
            output: result.stdout,
            error: '',
            returncode: result.returncode,
          });
        } catch (error) {
          const message =
            error instanceof ProcessTimeoutError
              ? `Script execution timed out after ${timeout} seconds`
              : `Failed to execute script: ${(error as Error).message}`;
          sendJson(response, 500, { status: 'error', output: message, error: '', returncode: -1 });
        } finally {
          await rm(file, { force: true });
        }
      },
    },
  };
}
