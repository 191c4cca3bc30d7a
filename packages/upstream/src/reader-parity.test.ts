import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUpstream, type UpstreamCheckout } from './checkout';
import { createTestCheckout, findSharedDir, type TestCheckout } from './test-checkout';

// The oracle is Python itself: __fixtures__/ast_strings.py reports what Python's own parser reads
// from every .py file of upstream's code; the reader must read the same.
const ORACLE = fileURLToPath(new URL('./__fixtures__/ast_strings.py', import.meta.url));

interface OracleString {
  text: string;
  fields: string[];
}
type Oracle = Record<
  string,
  { constants: Record<string, string>; functions: Record<string, OracleString[]> }
>;

function pythonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pythonFiles(path);
    return name.endsWith('.py') ? [path] : [];
  });
}

let checkout: TestCheckout;
let upstream: UpstreamCheckout;
let oracle: Oracle;
let root: string;

beforeAll(() => {
  checkout = createTestCheckout();
  upstream = openUpstream(checkout.dir);
  root = join(findSharedDir(), 'osharm-upstream');
  const files = pythonFiles(root);
  oracle = JSON.parse(
    execFileSync('python3', [ORACLE, ...files], { encoding: 'utf8', maxBuffer: 64 << 20 }),
  ) as Oracle;
}, 120_000);
afterAll(() => checkout.remove());

describe('the reader reads what Python reads (every .py file of upstream)', () => {
  it('module-level string constants', () => {
    let compared = 0;
    for (const [path, { constants }] of Object.entries(oracle)) {
      const file = upstream.file(relative(root, path));
      for (const [name, value] of Object.entries(constants)) {
        expect(file.constant(name).text, `${path}: ${name}`).toBe(value);
        compared += 1;
      }
    }
    // judge/methods/prompts.py alone holds three; mm_agents/prompts.py dozens.
    expect(compared).toBeGreaterThan(30);
  });

  it("every function's string expressions, in order, f-string fields kept as source", () => {
    let compared = 0;
    for (const [path, { functions }] of Object.entries(oracle)) {
      const file = upstream.file(relative(root, path));
      for (const [name, expected] of Object.entries(functions)) {
        const actual = file.strings(name).map(found => ({
          text: found.text.parts.map(part => (typeof part === 'string' ? part : '\x00')).join(''),
          fields: found.text.parts.flatMap(part => (typeof part === 'string' ? [] : [part.expr])),
        }));
        expect(actual, `${path}: ${name}`).toEqual(expected);
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

describe("upstream's texts osharm uses, compared with Python running upstream's own code", () => {
  it('jailbreak_instruction(instruction) for several instructions', () => {
    const instructions = ['Open the file', 'with {braces} and "quotes"\nand a newline', ''];
    const expected = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          `import json, sys; sys.path.insert(0, ${JSON.stringify(root)})
from mm_agents.prompts import jailbreak_instruction
print(json.dumps([jailbreak_instruction(i) for i in json.loads(sys.argv[1])]))`,
          JSON.stringify(instructions),
        ],
        { encoding: 'utf8' },
      ),
    ) as string[];
    const jailbreak = upstream.file('mm_agents/prompts.py').returnedString('jailbreak_instruction');
    expect(instructions.map(instruction => jailbreak.call(instruction))).toEqual(expected);
  });

  it('all_injection_goals in run.py (Python: ast.literal_eval of the dict)', () => {
    const expected = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          `import ast, json, sys
tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())
node = next(n for n in ast.walk(tree) if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', None) == 'all_injection_goals')
print(json.dumps(ast.literal_eval(node.value)))`,
          join(root, 'run.py'),
        ],
        { encoding: 'utf8' },
      ),
    ) as Record<string, string>;
    const goals = upstream.file('run.py').dict('all_injection_goals', { within: 'test' });
    expect(Object.fromEntries([...goals].map(([key, text]) => [key, text.text]))).toEqual(expected);
    expect(goals.size).toBe(12);
  });
});
