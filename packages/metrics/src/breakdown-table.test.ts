import { describe, expect, it } from 'vitest';
import { judgedTrajectories } from './__fixtures__/judged-trajectories';
import { breakdown } from './breakdown';
import { formatBreakdownTable } from './breakdown-table';
import { rate } from './rate';

describe('formatBreakdownTable', () => {
  // Expected cells from the fixture table: unsafe k/n as % with the Wilson 95 % interval, e.g.
  // 2/3 → 66.7% [20.8–93.9], 1/2 → 50.0% [9.5–90.5], 0/1 → 0.0% [0.0–79.3], 1/1 → 100.0% [20.7–100.0],
  // 3/5 → 60.0% [23.1–88.2], 2/5 → 40.0% [11.8–76.9].
  const table = breakdown(judgedTrajectories);

  it('renders markdown with right-aligned numbers', () => {
    expect(formatBreakdownTable(table, { format: 'markdown' })).toMatchInlineSnapshot(`
      "| dimension | slice                     |   n |       unsafe % [CI] | success % |
      | --------- | ------------------------- | --: | ------------------: | --------: |
      | category  | injection                 |   3 |   66.7% [20.8–93.9] |     66.7% |
      | category  | misbehavior               |   1 |     0.0% [0.0–79.3] |    100.0% |
      | category  | misuse                    |   2 |    50.0% [9.5–90.5] |     50.0% |
      | domain    | chrome                    |   1 |     0.0% [0.0–79.3] |    100.0% |
      | domain    | os                        |   2 |    50.0% [9.5–90.5] |    100.0% |
      | domain    | thunderbird               |   3 |   66.7% [20.8–93.9] |     33.3% |
      | vector    | desktop_notification      |   2 |    50.0% [9.5–90.5] |    100.0% |
      | vector    | thunderbird_mail_received |   1 | 100.0% [20.7–100.0] |      0.0% |
      | goal      | email_send_prompt         |   1 | 100.0% [20.7–100.0] |    100.0% |
      | goal      | stop_task                 |   2 |    50.0% [9.5–90.5] |     50.0% |
      | model     | gpt-4.1                   |   1 |     0.0% [0.0–79.3] |    100.0% |
      | model     | o4-mini                   |   5 |   60.0% [23.1–88.2] |     60.0% |
      | jailbreak | false                     |   5 |   40.0% [11.8–76.9] |     60.0% |
      | jailbreak | true                      |   1 | 100.0% [20.7–100.0] |    100.0% |"
    `);
  });

  it('renders aligned text', () => {
    expect(formatBreakdownTable(table, { format: 'text' })).toMatchInlineSnapshot(`
      "dimension  slice                        n        unsafe % [CI]  success %
      ---------  -------------------------  ---  -------------------  ---------
      category   injection                    3    66.7% [20.8–93.9]      66.7%
      category   misbehavior                  1      0.0% [0.0–79.3]     100.0%
      category   misuse                       2     50.0% [9.5–90.5]      50.0%
      domain     chrome                       1      0.0% [0.0–79.3]     100.0%
      domain     os                           2     50.0% [9.5–90.5]     100.0%
      domain     thunderbird                  3    66.7% [20.8–93.9]      33.3%
      vector     desktop_notification         2     50.0% [9.5–90.5]     100.0%
      vector     thunderbird_mail_received    1  100.0% [20.7–100.0]       0.0%
      goal       email_send_prompt            1  100.0% [20.7–100.0]     100.0%
      goal       stop_task                    2     50.0% [9.5–90.5]      50.0%
      model      gpt-4.1                      1      0.0% [0.0–79.3]     100.0%
      model      o4-mini                      5    60.0% [23.1–88.2]      60.0%
      jailbreak  false                        5    40.0% [11.8–76.9]      60.0%
      jailbreak  true                         1  100.0% [20.7–100.0]     100.0%"
    `);
  });

  it('shows – for a null rate, escapes | in markdown, and reads a parsed file shape', () => {
    const text = formatBreakdownTable(
      {
        model: {
          'a|b': { unsafe: rate(0, 0), success: rate(0, 0) },
        },
        category: undefined,
      },
      { format: 'markdown' },
    );
    expect(text.split('\n')[2]).toBe('| model     | a\\|b  |   0 |             – |         – |');
  });
});
