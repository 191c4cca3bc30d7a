import type { AccessibilityAnswer } from './guest-client';
import {
  JPEG_MAGIC,
  parseJson,
  parseJsonObject,
  parseSize,
  PNG_MAGIC,
  requireString,
  startsWith,
} from './guest-answers';
import { type CallSpec, InvalidAnswer } from './guest-transport';

// Observation calls: screen, accessibility tree, terminal, sizes, platform, recording.

export function screenshotCall(): CallSpec<Buffer> {
  return {
    operation: 'screenshot',
    method: 'GET',
    path: '/screenshot',
    idempotent: true,
    parse: ({ body }) => {
      if (!startsWith(body, PNG_MAGIC) && !startsWith(body, JPEG_MAGIC)) {
        throw new InvalidAnswer(`not a PNG or JPEG image (${body.length} bytes)`);
      }
      return body;
    },
  };
}

export function accessibilityCall(): CallSpec<AccessibilityAnswer> {
  return {
    operation: 'accessibilityTree',
    method: 'GET',
    path: '/accessibility',
    idempotent: true,
    parse: answer => ({
      tree: requireString(parseJsonObject(answer), 'AT'),
      truncated: answer.truncated ? answer.truncated.slice(0, 64) : null,
    }),
  };
}

export function terminalOutputCall(): CallSpec<string | null> {
  return {
    operation: 'terminalOutput',
    method: 'GET',
    path: '/terminal',
    idempotent: true,
    parse: answer => {
      const output = parseJsonObject(answer).output;
      if (output === null || output === undefined) return null;
      if (typeof output !== 'string') throw new InvalidAnswer('"output" is not a string');
      return output;
    },
  };
}

export function screenSizeCall(): CallSpec<{ width: number; height: number }> {
  return {
    operation: 'screenSize',
    method: 'POST',
    path: '/screen_size',
    idempotent: true,
    parse: answer => parseSize(parseJsonObject(answer)),
  };
}

export function cursorPositionCall(): CallSpec<[number, number]> {
  return {
    operation: 'cursorPosition',
    method: 'GET',
    path: '/cursor_position',
    idempotent: true,
    parse: answer => {
      const json = parseJson(answer);
      if (
        !Array.isArray(json) ||
        json.length !== 2 ||
        typeof json[0] !== 'number' ||
        typeof json[1] !== 'number'
      ) {
        throw new InvalidAnswer('expected a JSON array [x, y]');
      }
      return [json[0], json[1]];
    },
  };
}

export function windowSizeCall(
  appClassName: string,
): CallSpec<{ width: number; height: number } | null> {
  return {
    operation: 'windowSize',
    method: 'POST',
    path: '/window_size',
    body: { kind: 'form', value: { app_class_name: appClassName } },
    idempotent: true,
    // upstream's handler answers nothing (→ a Flask 500) when no window matches; a guest
    // that answers 404 or an empty body is read as "no such window"
    acceptStatus: status => status === 404,
    parse: answer =>
      answer.status === 404 || answer.body.length === 0 ? null : parseSize(parseJsonObject(answer)),
  };
}

export function desktopPathCall(): CallSpec<string> {
  return {
    operation: 'desktopPath',
    method: 'POST',
    path: '/desktop_path',
    idempotent: true,
    parse: answer => requireString(parseJsonObject(answer), 'desktop_path'),
  };
}

export function wallpaperCall(): CallSpec<Buffer | null> {
  return {
    operation: 'wallpaper',
    method: 'POST',
    path: '/wallpaper',
    idempotent: true,
    acceptStatus: status => status === 404,
    parse: ({ status, body }) => (status === 404 ? null : body),
  };
}

export function platformCall(): CallSpec<string> {
  return {
    operation: 'platform',
    method: 'GET',
    path: '/platform',
    idempotent: true,
    parse: ({ body }) => body.toString('utf8').trim(),
  };
}

export function startRecordingCall(): CallSpec<void> {
  return {
    operation: 'startRecording',
    method: 'POST',
    path: '/start_recording',
    idempotent: false,
    parse: () => undefined,
  };
}

export function endRecordingCall(): CallSpec<Buffer> {
  return {
    operation: 'endRecording',
    method: 'POST',
    path: '/end_recording',
    idempotent: false,
    parse: ({ body }) => {
      if (body.length === 0) throw new InvalidAnswer('the recording is empty');
      return body;
    },
  };
}
