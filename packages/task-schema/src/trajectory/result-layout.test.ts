import { describe, expect, it } from 'vitest';
import { describeTrajectoryPath } from './result-layout';

describe('describeTrajectoryPath', () => {
  it('reads a jailbreak misuse run: model without _jailbreak, jailbreak true', () => {
    expect(
      describeTrajectoryPath(
        'results/pyautogui/screenshot_a11y_tree/o4-mini_jailbreak/os/_ransomware',
      ),
    ).toStrictEqual({
      taskId: '_ransomware',
      category: 'misuse',
      domain: 'os',
      model: 'o4-mini',
      jailbreak: true,
      observationType: 'screenshot_a11y_tree',
      actionSpace: 'pyautogui',
    });
  });

  it('splits the __inject__{vector}__{goal} suffix off the task dir', () => {
    expect(
      describeTrajectoryPath(
        'results/pyautogui/screenshot_a11y_tree/gpt-4.1/thunderbird/__injected_email__inject__thunderbird_mail_received__stop_task',
      ),
    ).toStrictEqual({
      taskId: '__injected_email',
      category: 'injection',
      domain: 'thunderbird',
      model: 'gpt-4.1',
      jailbreak: false,
      observationType: 'screenshot_a11y_tree',
      actionSpace: 'pyautogui',
      injection: { vector: 'thunderbird_mail_received', goal: 'stop_task' },
    });
  });

  it('makes an OSWorld UUID task with an inject suffix an injection run, taking the last five segments of a long path', () => {
    const facts = describeTrajectoryPath(
      '/home/me/os-harm/results/pyautogui/screenshot/claude-3-7-sonnet-20250219/chrome/2ad9387a-65d8-4e33-ad5b-7580065a27ca__inject__website__url_query_params',
    );
    expect(facts.taskId).toBe('2ad9387a-65d8-4e33-ad5b-7580065a27ca');
    expect(facts.category).toBe('injection');
    expect(facts.injection).toEqual({ vector: 'website', goal: 'url_query_params' });
    expect(facts.actionSpace).toBe('pyautogui');
    expect(facts.observationType).toBe('screenshot');
    expect(facts.model).toBe('claude-3-7-sonnet-20250219');
  });

  it('keeps only what a short relative path says (domain/task)', () => {
    expect(describeTrajectoryPath('chrome/2ad9387a-65d8-4e33-ad5b-7580065a27ca')).toStrictEqual({
      taskId: '2ad9387a-65d8-4e33-ad5b-7580065a27ca',
      category: 'osworld',
      domain: 'chrome',
      jailbreak: false,
    });
    expect(describeTrajectoryPath('___unprompted_rm')).toStrictEqual({
      taskId: '___unprompted_rm',
      category: 'misbehavior',
      jailbreak: false,
    });
    expect(describeTrajectoryPath('o4-mini_jailbreak/os/_ransomware/')).toStrictEqual({
      taskId: '_ransomware',
      category: 'misuse',
      domain: 'os',
      model: 'o4-mini',
      jailbreak: true,
    });
  });

  it('accepts Windows separators, mixed separators and a trailing separator', () => {
    const windows = describeTrajectoryPath(
      'C:\\runs\\results\\pyautogui\\som\\o4-mini\\vs_code\\__notes__inject__vs_code__stop_task\\',
    );
    expect(windows).toStrictEqual({
      taskId: '__notes',
      category: 'injection',
      domain: 'vs_code',
      model: 'o4-mini',
      jailbreak: false,
      observationType: 'som',
      actionSpace: 'pyautogui',
      injection: { vector: 'vs_code', goal: 'stop_task' },
    });
    expect(
      describeTrajectoryPath('results\\pyautogui/a11y_tree\\gpt-4.1//os/_ransomware//'),
    ).toMatchObject({ taskId: '_ransomware', observationType: 'a11y_tree', model: 'gpt-4.1' });
  });

  it('keeps a suffix with an unknown vector or goal in the task id (no injection)', () => {
    expect(describeTrajectoryPath('os/_x__inject__carrier_pigeon__stop_task')).toStrictEqual({
      taskId: '_x__inject__carrier_pigeon__stop_task',
      category: 'misuse',
      domain: 'os',
      jailbreak: false,
    });
  });

  it('does not read a model dir named just "_jailbreak" as a jailbreak', () => {
    expect(describeTrajectoryPath('_jailbreak/os/_a')).toMatchObject({
      model: '_jailbreak',
      jailbreak: false,
    });
  });

  it('lets better_log facts override the path', () => {
    const path = 'results/pyautogui/screenshot_a11y_tree/o4-mini/thunderbird/__injected_email';
    expect(
      describeTrajectoryPath(path, {
        injection: { vector: 'desktop_notification', goal: 'email_send_prompt' },
        jailbreak: true,
      }),
    ).toMatchObject({
      taskId: '__injected_email',
      category: 'injection',
      model: 'o4-mini',
      jailbreak: true,
      injection: { vector: 'desktop_notification', goal: 'email_send_prompt' },
    });
    // null: better_log says no injection, so the suffix is ignored and the UUID stays osworld
    const plain = describeTrajectoryPath(
      'chrome/2ad9387a-65d8-4e33-ad5b-7580065a27ca__inject__website__stop_task',
      { injection: null, jailbreak: false },
    );
    expect(plain.category).toBe('osworld');
    expect(plain.taskId).toBe('2ad9387a-65d8-4e33-ad5b-7580065a27ca');
    expect('injection' in plain).toBe(false);
    expect(describeTrajectoryPath('o4-mini_jailbreak/os/_a', { jailbreak: false }).jailbreak).toBe(
      false,
    );
  });

  it('reads a model name with / that upstream nested in dirs', () => {
    const path =
      '/r/pyautogui/screenshot_a11y_tree/Qwen/Qwen2.5-VL-72B-Instruct_jailbreak/chrome/_abc__inject__desktop_notification__email_send_password';
    expect(describeTrajectoryPath(path)).toMatchObject({
      model: 'Qwen/Qwen2.5-VL-72B-Instruct',
      jailbreak: true,
      domain: 'chrome',
      observationType: 'screenshot_a11y_tree',
      actionSpace: 'pyautogui',
      category: 'injection',
    });
    // osharm's older flat name, and a plain name, are read as before
    expect(
      describeTrajectoryPath('/r/pyautogui/screenshot/Qwen_Qwen2.5-VL-72B-Instruct/os/t1'),
    ).toMatchObject({
      model: 'Qwen_Qwen2.5-VL-72B-Instruct',
      observationType: 'screenshot',
      actionSpace: 'pyautogui',
    });
    // a segment that is not an observation type before the model does not make it nested
    expect(describeTrajectoryPath('/screenshot/a/b/c/os/t1')).toMatchObject({
      model: 'c',
      domain: 'os',
    });
  });
});
