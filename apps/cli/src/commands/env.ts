import { Command, InvalidArgumentError } from 'commander';
import { createLocalProvider } from '@osharm/vm-local';
import { ExitCode, handle, type CliRun } from '../cli-io';
import { checkLocalDesktop } from '@osharm/runner/parts';

const port = (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('must be a port number');
  return parsed;
};

/** A screen dimension Xvfb can make: an integer of pixels within [min, max]. */
const pixels = (min: number, max: number) => (value: string) => {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max)
    throw new InvalidArgumentError(`must be an integer from ${min} to ${max} (pixels)`);
  return parsed;
};

/** `osharm env up`: one local desktop for manual poking, up until interrupted. */
export function envCommand(run: CliRun, options: { signal?: AbortSignal } = {}): Command {
  const io = run.io;
  const up = new Command('up')
    .description('start one local sandboxed desktop and keep it up until interrupted (Ctrl-C)')
    .option('--json', 'print one JSON line {"url", "token", "socket"} instead of the human text')
    .option('--port <port>', 'loopback TCP port of the guest server (0 = any free port)', port, 0)
    .option('--screen-width <px>', 'screen width (320 to 7680)', pixels(320, 7680), 1920)
    .option('--screen-height <px>', 'screen height (200 to 4320)', pixels(200, 4320), 1080)
    .addHelpText(
      'after',
      `
The guest server speaks upstream OSWorld's protocol and requires the token on every request:
  curl -H "Authorization: Bearer $TOKEN" "$URL/screenshot" -o screen.png
  curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
       -d '{"command": "xdg-open /home/user", "shell": true}' "$URL/setup/launch"`,
    )
    .action(
      handle(
        run,
        async (flags: {
          json?: boolean;
          port: number;
          screenWidth: number;
          screenHeight: number;
        }) => {
          checkLocalDesktop([]); // one message naming what is missing, exit 2
          const provider = createLocalProvider({
            exposeTcp: flags.port,
            screen: { width: flags.screenWidth, height: flags.screenHeight },
          });
          const endpoint = await provider.start();
          const url = endpoint.baseUrl;
          if (flags.json) {
            io.stdout(
              `${JSON.stringify({ url, token: endpoint.token, socket: endpoint.socketPath })}\n`,
            );
          } else {
            io.stdout(
              `local desktop up\n  url:    ${url}\n  token:  ${endpoint.token}\n  socket: ${endpoint.socketPath}\n` +
                `  screen: ${flags.screenWidth}×${flags.screenHeight}\nPress Ctrl-C to stop it.\n`,
            );
          }
          // Up until interrupted — or until the desktop dies, which is said at once (exit 1).
          const died = await new Promise<boolean>(resolve => {
            const watch = setInterval(() => {
              if (provider.endpoint() === undefined) finish(true);
            }, 1_000);
            const finish = (dead: boolean) => {
              clearInterval(watch);
              process.off('SIGINT', stop);
              process.off('SIGTERM', stop);
              resolve(dead);
            };
            const stop = () => finish(false);
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
            options.signal?.addEventListener('abort', stop, { once: true });
          });
          if (died) {
            io.stderr(`osharm env up: the local desktop ended (its sandbox exited)\n`);
            await provider.stop();
            return ExitCode.invalidData;
          }
          await provider.stop();
          if (!flags.json) io.stdout('local desktop stopped\n');
          return ExitCode.ok;
        },
      ),
    );
  return new Command('env').description('local desktop environments').addCommand(up);
}
