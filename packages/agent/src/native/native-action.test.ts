import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TYPE_CHUNK, chunkText, pyautoguiCode } from './native-action';
import type { NativeAction } from './native-action';

const every: NativeAction[] = [
  { kind: 'click', at: { x: 1, y: 2 }, button: 'left', clicks: 3, holdKeys: ['ctrl', 'shift'] },
  { kind: 'click', button: 'right', clicks: 1, holdKeys: [] },
  { kind: 'move', to: { x: 5, y: 6 }, holdKeys: ['alt'] },
  {
    kind: 'drag',
    path: [
      { x: 0, y: 0 },
      { x: 9, y: 9 },
    ],
    holdKeys: [],
  },
  { kind: 'mouse_down', button: 'middle' },
  { kind: 'mouse_up', button: 'middle' },
  { kind: 'scroll', at: { x: 3, y: 4 }, down: 2, right: -1, holdKeys: ['shift'] },
  { kind: 'type', text: 'quotes " and \' and \\ and\nnewline and <less> and ünïcode 🙂' },
  { kind: 'key', keys: ['\\'], repeat: 1 },
  { kind: 'key', keys: ['ctrl', "'"], repeat: 3 },
  { kind: 'hold_key', keys: ['shift', 'a'], seconds: 0.5 },
  { kind: 'wait', seconds: 1 },
];

describe('pyautoguiCode', () => {
  it('writes valid Python for every kind of action, even with hostile text', () => {
    const program = every
      .map(pyautoguiCode)
      .map(code => `def step():\n    ${code}\n`)
      .join('');
    // parse only (the guest runs it; here Python checks the syntax and the string literals)
    const out = execFileSync(
      'python3',
      ['-c', 'import ast,sys; ast.parse(sys.stdin.read()); print("ok")'],
      {
        input: program,
      },
    );
    expect(out.toString().trim()).toBe('ok');
  });

  it('keeps the typed text exactly, as Python reads the literal back', () => {
    const text = every.find(action => action.kind === 'type')!;
    const code = pyautoguiCode(text)!;
    const literal = /^pyautogui\.write\((.*), interval=0\)$/.exec(code)![1]!;
    const back = execFileSync('python3', [
      '-c',
      `import sys; sys.stdout.write(${literal})`,
    ]).toString();
    expect(back).toBe((text as { text: string }).text);
  });

  it('types a 1,000-character text in chunks with no pause between keys', () => {
    const text = 'abcdefghij'.repeat(100);
    const code = pyautoguiCode({ kind: 'type', text })!;
    const calls = code.split('; ');
    expect(calls).toHaveLength(Math.ceil(1000 / TYPE_CHUNK));
    for (const call of calls) expect(call).toMatch(/^pyautogui\.write\("[a-j]+", interval=0\)$/);
    expect(calls.map(call => /"([a-j]+)"/.exec(call)![1]).join('')).toBe(text);
  });

  it('never splits a character made of two UTF-16 units', () => {
    const chunks = chunkText('🙂'.repeat(5), 2);
    expect(chunks).toEqual(['🙂🙂', '🙂🙂', '🙂']);
  });

  it('sends nothing to the guest for observation-only actions', () => {
    expect(pyautoguiCode({ kind: 'screenshot' })).toBeNull();
    expect(pyautoguiCode({ kind: 'cursor_position' })).toBeNull();
    expect(pyautoguiCode({ kind: 'zoom', region: [0, 0, 10, 10] })).toBeNull();
  });

  it('refuses a drag with one point', () => {
    expect(() => pyautoguiCode({ kind: 'drag', path: [{ x: 1, y: 1 }], holdKeys: [] })).toThrow(
      RangeError,
    );
  });
});
