import { describe, expect, it } from 'vitest';
import { EvaluationError } from './evaluator-error';
import {
  compilePythonRegex,
  pythonRegexFlagsFromNames,
  pythonRegexSearch,
} from './evaluator-python-regex';

// Every expectation below is what CPython 3.11's re.search(pattern, text, flags) answers.
describe('compilePythonRegex', () => {
  const cases: Array<[pattern: string, text: string, flags: string[], python: boolean]> = [
    ['^ab$', 'ab\n', [], true], // $ also matches before a final newline
    ['^ab$', 'ab\n\n', [], false],
    ['a.c', 'a\nc', [], false],
    ['a.c', 'a\nc', ['DOTALL'], true],
    ['a.c', 'a\rc', [], true], // only \n is excluded from .
    ['^b', 'a\nb', ['M'], true],
    ['a$', 'a\nb', ['MULTILINE'], true],
    ['\\w+é', 'café', [], true], // Unicode \w
    ['\\bcafé\\b', 'x café y', [], true], // Unicode \b
    ['\\d', '٣', [], true],
    ['\\d', '٣', ['A'], false],
    ['(?P<x>a)(?P=x)', 'aa', [], true],
    ['a{,2}b', 'aab', [], true],
    ['a{b', 'a{b', [], true], // a { that is not a quantifier is literal
    ['x{2,}', 'xxx', [], true],
    ['(?i)HELLO', 'hello', [], true],
    ['hello', 'HeLLo', ['IGNORECASE'], true],
    ['a # comment\n b', 'ab', ['X'], true],
    ['[\\s]', '\x1c', [], true], // Python whitespace includes \x1c
    ['\\s', '\ufeff', [], false], // … but not U+FEFF (JavaScript's \s does)
    ['\\Aab\\Z', 'ab', [], true],
    ['\\Aab\\Z', 'ab\n', [], false],
    ['[^\\S]', ' ', [], true],
    ['\\x41\\u00e9', 'Aé', [], true],
    ['\\101', 'A', [], true],
    ['[\\101]', 'A', [], true],
    ['\\.example\\.com$', 'mail.example.com', [], true],
    ['a\\-b', 'a-b', [], true],
    ['[]a]', ']', [], true],
    ['a(?#c)b', 'ab', [], true],
    ['(?<=a)b', 'ab', [], true],
    ['\\W', 'é', [], false],
    ['\\S+@\\S+', 'me@x.org', [], true],
    ['imap\\.example\\.(org|net)', 'imap.example.net', [], true],
    ['^/home/\\w+/Mail$', '/home/user/Mail', [], true],
  ];
  it.each(cases)('re.search(%j, %j, %j) is %s', (pattern, text, flags, python) => {
    expect(pythonRegexSearch(pattern, text, pythonRegexFlagsFromNames(flags))).toBe(python);
  });

  it('rejects what Python rejects, and what JavaScript cannot express', () => {
    expect(() => compilePythonRegex('\\q')).toThrow(EvaluationError); // bad escape
    expect(() => compilePythonRegex('a(?i)b')).toThrow(/global flags/);
    expect(() => compilePythonRegex('(?i:a)b')).toThrow(/scoped inline flags/);
    expect(() => compilePythonRegex('(?>a)')).toThrow(/atomic/);
    expect(() => compilePythonRegex('[a')).toThrow(/unterminated/);
    expect(() => compilePythonRegex('a**')).toThrow(EvaluationError);
    expect(() => pythonRegexFlagsFromNames(['LOCALE'])).toThrow(/LOCALE/);
    expect(() => pythonRegexFlagsFromNames(['NOPE'])).toThrow(/unknown Python regex flag/);
  });

  it('accepts the no-op flags', () => {
    expect(pythonRegexFlagsFromNames(['U', 'UNICODE', 'NOFLAG'])).toEqual({});
    expect(pythonRegexFlagsFromNames(['I', 'S'])).toEqual({ ignoreCase: true, dotAll: true });
  });
});
