import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonJsonDump } from './upstream-messages';

// upstream's run_judge.py writes messages.json with Python's json.dump(…, indent=2): the text is
// compared with what python3 itself writes for values that exercise every escape rule.
describe('pythonJsonDump', () => {
  it("writes Python's json.dump(value, indent=2) text", () => {
    const value = [
      { role: 'system', content: [{ type: 'text', text: 'café — “quoted” \u007f\u0001\t\n\\"' }] },
      { role: 'user', content: 'emoji 🚀 日本語 \u2028 \ud800 end', empty: [], none: {}, n: 3 },
      [],
      {},
    ];
    const python = execFileSync(
      'python3',
      [
        '-c',
        'import json, sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), indent=2))',
      ],
      { input: JSON.stringify(value), encoding: 'utf8' },
    );
    expect(pythonJsonDump(value)).toBe(python);
  });
});
