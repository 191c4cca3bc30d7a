import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '@osharm/models';
import type { DatasetTask } from '@osharm/task-schema';
import { RunBreaker } from './run-breaker';
import type { RunOutcome } from './run-one';
import type { PlannedRun } from './run-plan';

/** The stop rules of `osharm run` (the e2e test drives them with a real closed port). */
const endpoint = (role: 'agent' | 'judge') =>
  resolveEndpoint({
    role,
    model: 'gpt-4.1',
    flag: {
      name: role === 'agent' ? '--base-url' : '--judge-base-url',
      value: 'http://127.0.0.1:9999/v1',
    },
    env: {},
  });
const run = {
  label: 'os/_a',
  dir: '/r/os/_a',
  finished: false,
  task: {} as DatasetTask,
} as PlannedRun;
const refused: RunOutcome = {
  run,
  score: null,
  error: 'os/_a - agent model call failed: APIConnectionError (ECONNREFUSED): Connection error.',
  modelFailure: {
    name: 'APIConnectionError',
    message: 'Connection error.',
    code: 'ECONNREFUSED',
    kind: 'connection',
  },
};
const rateLimited: RunOutcome = {
  ...refused,
  modelFailure: { name: 'RateLimitError', message: 'slow down', status: 429, kind: 'http' },
};

describe('RunBreaker', () => {
  it('stops after 3 connection failures in a row, with one message naming the host', () => {
    const breaker = new RunBreaker({ agent: endpoint('agent') });
    expect(breaker.record(refused)).toBeUndefined();
    expect(breaker.record(refused)).toBeUndefined();
    const note = breaker.record(refused);
    expect(breaker.stopped).toBe(true);
    expect(note).toMatch(
      /^stopping the batch: cannot reach the agent model gpt-4\.1 at 127\.0\.0\.1:9999 \(http:\/\/127\.0\.0\.1:9999\/v1 \(from --base-url\)\): ECONNREFUSED/,
    );
    expect(note).toContain(
      '3 call(s) in a row failed to connect, each after 2 retries with a 600 s request timeout',
    );
    expect(breaker.record(refused)).toBeUndefined(); // said once
  });

  it('an answer in between (even a 429) resets the count', () => {
    const breaker = new RunBreaker({ agent: endpoint('agent') });
    breaker.record(refused);
    breaker.record(refused);
    breaker.record(rateLimited);
    breaker.record(refused);
    breaker.record(refused);
    expect(breaker.stopped).toBe(false);
  });

  it('a refused key stops at once', () => {
    const breaker = new RunBreaker({ agent: endpoint('agent') });
    const note = breaker.record({
      ...refused,
      modelFailure: { name: 'AuthenticationError', message: 'bad key', status: 401, kind: 'http' },
    });
    expect(breaker.stopped).toBe(true);
    expect(note).toContain('AuthenticationError 401: bad key');
  });

  it('turns inline judging off after 3 judge connection failures; the runs go on', () => {
    const breaker = new RunBreaker({ agent: endpoint('agent'), judge: endpoint('judge') });
    const judgeDown: RunOutcome = {
      run,
      score: 1,
      judgeError: 'Connection error.',
      judgeConnectionFailure: {
        name: 'APIConnectionError',
        code: 'ECONNREFUSED',
        message: 'Connection error.',
      },
    };
    breaker.record(judgeDown);
    breaker.record(judgeDown);
    const note = breaker.record(judgeDown);
    expect(breaker.judgeEnabled).toBe(false);
    expect(breaker.stopped).toBe(false);
    expect(note).toMatch(
      /^inline judging turned off: cannot reach the judge model gpt-4\.1 at 127\.0\.0\.1:9999/,
    );
    expect(note).toContain('osharm judge <result dir>');
  });
});
