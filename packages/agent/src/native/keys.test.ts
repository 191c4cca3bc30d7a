import { describe, expect, it } from 'vitest';
import {
  UnknownKeyError,
  openaiKeys,
  playwrightCombination,
  pyautoguiKey,
  xdotoolCombination,
} from './keys';

describe('key-name tables', () => {
  it.each([
    ['ctrl+s', ['ctrl', 's']],
    ['Return', ['enter']],
    ['alt+Tab', ['alt', 'tab']],
    ['ctrl+shift+Escape', ['ctrl', 'shift', 'esc']],
    ['Page_Up', ['pgup']],
    ['Page_Down', ['pgdn']],
    ['BackSpace', ['backspace']],
    ['Delete', ['delete']],
    ['super', ['win']],
    ['Super_L', ['winleft']],
    ['ctrl+alt+t', ['ctrl', 'alt', 't']],
    ['KP_Enter', ['enter']],
    ['ctrl+minus', ['ctrl', '-']],
    ['ctrl+plus', ['ctrl', '+']],
    ['ctrl++', ['ctrl', '+']],
    ['+', ['+']],
    ['F5', ['f5']],
    ['shift+F10', ['shift', 'f10']],
    ['Up', ['up']],
    ['space', ['space']],
    ['XF86AudioMute', ['volumemute']],
    ['KP_7', ['num7']],
  ])('xdotool %s → %j', (combination, keys) => {
    expect(xdotoolCombination(combination)).toEqual(keys);
  });

  it.each([
    [
      ['CTRL', 'S'],
      ['ctrl', 's'],
    ],
    [['ENTER'], ['enter']],
    [['ESC'], ['esc']],
    [['ARROWUP'], ['up']],
    [['ARROWLEFT'], ['left']],
    [['SPACE'], ['space']],
    [['BACKSPACE'], ['backspace']],
    [
      ['CMD', 'C'],
      ['win', 'c'],
    ],
    [['META'], ['win']],
    [['SUPER'], ['win']],
    [
      ['OPTION', 'TAB'],
      ['alt', 'tab'],
    ],
    [['PAGEUP'], ['pgup']],
    [['PAGEDOWN'], ['pgdn']],
    [
      ['SHIFT', 'ALT', 'DELETE'],
      ['shift', 'alt', 'delete'],
    ],
    [['/'], ['/']],
  ])('OpenAI %j → %j', (keys, expected) => {
    expect(openaiKeys(keys)).toEqual(expected);
  });

  it.each([
    ['Control+C', ['ctrl', 'c']],
    ['Control+Shift+T', ['ctrl', 'shift', 't']],
    ['Enter', ['enter']],
    ['Meta', ['win']],
    ['Alt+F4', ['alt', 'f4']],
    ['ArrowDown', ['down']],
    ['PageDown', ['pgdn']],
    ['Escape', ['esc']],
    ['Backspace', ['backspace']],
    ['Shift+Tab', ['shift', 'tab']],
  ])('Gemini %s → %j', (combination, keys) => {
    expect(playwrightCombination(combination)).toEqual(keys);
  });

  it('keeps a single non-letter character and a non-ASCII character as they are', () => {
    expect(pyautoguiKey('é')).toBe('é');
    expect(pyautoguiKey('\\')).toBe('\\');
    expect(pyautoguiKey('A')).toBe('a');
  });

  it('refuses an unknown name or an empty combination', () => {
    expect(() => xdotoolCombination('ctrl+Hyperdrive')).toThrow(UnknownKeyError);
    expect(() => xdotoolCombination('')).toThrow(UnknownKeyError);
    expect(() => openaiKeys([])).toThrow(UnknownKeyError);
    expect(() => openaiKeys(['F25'])).toThrow(/unknown key name "F25"/);
  });
});
