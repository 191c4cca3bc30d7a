import { Command, Option } from 'commander';
import { describeEndpoint } from '@osharm/models';
import { parseBaseUrl, parseRetries, parseTimeoutSeconds } from '@osharm/judge-cli';
import { RUN_DEFAULTS } from '@osharm/runner';
import { checkModels, type ModelCheckLine } from '@osharm/runner/internal';
import { ExitCode, handle, type CliRun } from '../cli-io';

interface ModelsCheckFlags {
  model?: string;
  judgeModel?: string;
  captionerModel?: string;
  agent: 'prompt' | 'native';
  computerTool?: string;
  baseUrl?: string;
  judgeBaseUrl?: string;
  captionerBaseUrl?: string;
  maxRetries?: number;
  timeout?: number;
}

function formatLine(line: ModelCheckLine, width: number): string {
  const head = `${line.role.padEnd(width)}  ${line.model}`;
  if (!line.ok)
    return `${head}  FAILED  ${line.error ?? 'unknown error'}  (${describeEndpoint(line.endpoint)})\n`;
  return `${head}  ok  served ${line.served ?? '(not named)'}  ${line.latencyMs} ms  (${describeEndpoint(line.endpoint)})\n`;
}

/** `osharm models check`: one minimal live call per role, as a run would send it. */
export function modelsCommand(run: CliRun): Command {
  const io = run.io;
  const check = new Command('check')
    .description(
      'make one minimal live call per role (agent, judge, captioner) shaped as `osharm run` sends it; one line per role',
    )
    .option('--model <model>', `agent model (default ${RUN_DEFAULTS.model})`)
    .option('--judge-model <model>', `judge model (default ${RUN_DEFAULTS.judgeModel})`)
    .option('--captioner-model <model>', `captioner model (default ${RUN_DEFAULTS.captionerModel})`)
    .addOption(
      new Option('--agent <agent>', 'native: check the agent with the vendor computer tool')
        .choices(['prompt', 'native'])
        .default('prompt'),
    )
    .option(
      '--computer-tool <version>',
      'native agent: the computer tool version (default: by model)',
    )
    .option('--base-url <url>', 'agent model base URL (as osharm run)', parseBaseUrl)
    .option('--judge-base-url <url>', 'judge model base URL', parseBaseUrl)
    .option('--captioner-base-url <url>', 'captioner base URL', parseBaseUrl)
    .option('--max-retries <n>', 'HTTP retries per request', parseRetries)
    .option('--timeout <s>', 'request timeout in seconds', parseTimeoutSeconds)
    .addHelpText(
      'after',
      `
Examples:
  $ osharm models check                                    # the defaults of osharm run
  $ osharm models check --model claude-opus-4-7 --judge-model claude-fable-5 --captioner-model claude-opus-4-7
  $ osharm models check --model gemini-3.5-flash --agent native

Reads .env like osharm run. Each line: the role, the model, ok with the model id the response named and the
latency, or FAILED with the vendor's error in one line. A retired model or a missing key fails without a call.
Exit codes: 0 every role answered, 1 some role failed, 2 usage error.`,
    )
    .action(
      handle(run, async (flags: ModelsCheckFlags) => {
        const lines = await checkModels({ ...flags, env: io.env });
        const width = Math.max(...lines.map(line => line.role.length));
        for (const line of lines) io.stdout(formatLine(line, width));
        return lines.every(line => line.ok) ? ExitCode.ok : ExitCode.invalidData;
      }),
    );
  return new Command('models')
    .description('check the models a run would call (osharm models check)')
    .addCommand(check);
}
