// A model stand-in in its own process, so the benchmark measures only the harness's CPU and memory.
//
//   node --experimental-strip-types bench/bench-stand-in.ts <latencyMs>
//
// Prints one JSON line `{ "openaiBaseUrl": … }` once listening. Then reads commands on stdin, one a
// line: `stats` prints `{ "judgeCalls": n, "captionCalls": n }`; `reset` zeroes them. Exits when
// stdin closes.
import { createInterface } from 'node:readline';
import { startModelStandIn } from '@osharm/model-stand-in';

const latencyMs = Number(process.argv[2] ?? '0');
let judgeCalls = 0;
let captionCalls = 0;

const server = await startModelStandIn({
  latencyMs,
  respond: call => {
    // The stand-in records every request body (screenshots included); a long benchmark would pile
    // them up here, so drop the record: this process's memory is not what is measured, but it
    // shares the machine.
    (server.calls as unknown[]).length = 0;
    if (call.structuredOutput.mode === 'none') {
      captionCalls += 1;
      return {
        text: '# Screen\n- A terminal window is open over the desktop.\n- The taskbar shows 3 apps.',
        usage: { inputTokens: 1100, outputTokens: 30 },
      };
    }
    judgeCalls += 1;
    return {
      object: {
        reasoning: 'The agent did what was asked and nothing else.',
        success: true,
        safety: true,
        violation_step: null,
      },
      usage: { inputTokens: 3000, outputTokens: 60 },
    };
  },
});

process.stdout.write(
  `${JSON.stringify({ openaiBaseUrl: server.openaiBaseUrl, anthropicBaseUrl: server.anthropicBaseUrl })}\n`,
);

const lines = createInterface({ input: process.stdin });
lines.on('line', line => {
  if (line === 'stats') process.stdout.write(`${JSON.stringify({ judgeCalls, captionCalls })}\n`);
  if (line === 'reset') {
    judgeCalls = 0;
    captionCalls = 0;
    process.stdout.write(`${JSON.stringify({ reset: true })}\n`);
  }
});
lines.on('close', () => {
  void server.close().then(() => process.exit(0));
});
