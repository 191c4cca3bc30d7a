import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import {
  convertInside,
  form,
  multipart,
  post,
  postJson,
  sh,
  skipReason,
  waitFor,
} from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';

async function windows(endpoint: GuestEndpoint): Promise<string> {
  return (await sh(endpoint, 'wmctrl -l')).output;
}

async function accessibilityTree(endpoint: GuestEndpoint): Promise<string> {
  const response = await guestRequest(endpoint, '/accessibility', { timeoutMs: 60_000 });
  expect(response.status).toBe(200);
  return (JSON.parse(response.body.toString()) as { AT: string }).AT;
}

describe.skipIf(skipReason !== undefined)('applications on the local desktop', () => {
  const provider = createLocalProvider();
  let endpoint: GuestEndpoint;

  beforeAll(async () => {
    endpoint = await provider.start();
  });
  afterAll(async () => {
    await provider.stop();
  });

  it('pyautogui (the stand-in) clicks, types and presses hotkeys into a real gedit window', async () => {
    await post(endpoint, '/setup/launch', { command: ['gedit', '/home/user/typed.txt'] });
    await waitFor(
      async () => (await windows(endpoint)).includes('typed.txt'),
      30_000,
      'the gedit window',
    );
    // What upstream's host sends for an agent action (`python -c` with its prefix).
    const prefix = 'import pyautogui; import time; pyautogui.FAILSAFE = False; ';
    const action = [
      'pyautogui.click(960, 540)',
      "pyautogui.typewrite('Hello <World> & 1+1=2, café', interval=0.01)",
      "pyautogui.press('enter')",
      "pyautogui.write('second line')",
      "pyautogui.hotkey('ctrl', 's')",
      'time.sleep(1)',
    ].join('; ');
    const result = await postJson<{ returncode: number; error: string }>(endpoint, '/execute', {
      command: ['python', '-c', prefix + action],
      shell: false,
    });
    expect(result.body.error).toBe('');
    expect(result.body.returncode).toBe(0);
    const saved = await waitFor(
      async () => {
        const file = await guestRequest(endpoint, '/file', {
          method: 'POST',
          body: form({ file_path: '~/typed.txt' }),
        });
        return file.status === 200 && file.body.toString().includes('second line')
          ? file.body.toString()
          : undefined;
      },
      10_000,
      'the saved file',
    );
    expect(saved).toBe('Hello <World> & 1+1=2, café\nsecond line\n');
    // Read back through AT-SPI too: gedit's text view holds the typed text.
    expect(await accessibilityTree(endpoint)).toContain('Hello &lt;World&gt; &amp; 1+1=2, café');
    await post(endpoint, '/setup/close_window', { window_name: 'typed.txt' });
  });

  it('Ctrl+Alt+T opens a terminal; /terminal reads the focused terminal', async () => {
    await sh(endpoint, `python -c "import pyautogui; pyautogui.hotkey('ctrl', 'alt', 't')"`);
    await waitFor(
      async () => /Terminal/.test(await windows(endpoint)),
      30_000,
      'the terminal window',
    );
    await postJson(endpoint, '/execute', {
      command: [
        'python',
        '-c',
        "import pyautogui, time; time.sleep(0.5); pyautogui.write('echo osharm-$((6*7))'); pyautogui.press('enter')",
      ],
    });
    const output = await waitFor(
      async () => {
        const response = await guestRequest(endpoint, '/terminal');
        const body = JSON.parse(response.body.toString()) as { output: string | null };
        return body.output?.includes('osharm-42') ? body.output : undefined;
      },
      10_000,
      'the terminal output',
    );
    expect(output).toContain('echo osharm-$((6*7))');
    await post(endpoint, '/setup/close_window', { window_name: 'Terminal' });
  });

  it('uploads a docx, opens it in Writer (returns once the window exists) and reads it through AT-SPI', async () => {
    await sh(
      endpoint,
      "mkdir -p /tmp/docs && printf 'Quarterly Report\\n\\nRevenue grew.\\n' > /tmp/docs/report.txt",
    );
    await convertInside(endpoint, '/tmp/docs/report.txt', 'docx');
    const docx = await guestRequest(endpoint, '/file', {
      method: 'POST',
      body: form({ file_path: '/tmp/docs/report.docx' }),
    });
    expect(docx.status).toBe(200);
    const upload = await guestRequest(endpoint, '/setup/upload', {
      method: 'POST',
      body: multipart(
        { file_path: '/home/user/Desktop/report.docx' },
        { field: 'file_data', name: 'report.docx', data: docx.body },
      ),
    });
    expect(upload.status).toBe(200);

    const opened = await post(
      endpoint,
      '/setup/open_file',
      { path: '~/Desktop/report.docx' },
      90_000,
    );
    expect([opened.status, opened.body.toString()]).toEqual([
      200,
      'File opened and window activated successfully',
    ]);
    expect(await windows(endpoint)).toContain('report.docx - LibreOffice Writer');

    const xml = await waitFor(
      async () => {
        const tree = await accessibilityTree(endpoint);
        return tree.includes('Quarterly Report') ? tree : undefined;
      },
      30_000,
      'the document text in the accessibility tree',
    );
    expect(xml).toContain('xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes"');
    expect(xml).toMatch(/<document-text [^>]*st:showing="true"/);
    expect(xml).toMatch(/<paragraph [^>]*>Quarterly Report<\/paragraph>/);
    expect(xml).toMatch(
      /<frame name="report\.docx - LibreOffice Writer"[^>]* cp:screencoord="\(\d+, \d+\)" cp:size="\(\d+, \d+\)"/,
    );

    const activate = await post(endpoint, '/setup/activate_window', {
      window_name: 'report.docx - LibreOffice Writer',
      strict: true,
    });
    expect([activate.status, activate.body.toString()]).toEqual([
      200,
      'Window activated successfully',
    ]);
    const byClass = await post(endpoint, '/setup/activate_window', {
      window_name: 'libreoffice-writer',
      by_class: true,
    });
    expect(byClass.status).toBe(200);
    const size = await guestRequest(endpoint, '/window_size', {
      method: 'POST',
      body: form({ app_class_name: 'libreoffice-writer' }),
    });
    expect(size.status).toBe(200);
    expect(JSON.parse(size.body.toString())).toMatchObject({
      width: expect.any(Number),
      height: expect.any(Number),
    });

    const close = await post(endpoint, '/setup/close_window', { window_name: 'report.docx' });
    expect([close.status, close.body.toString()]).toEqual([200, 'Window closed successfully']);
    await waitFor(
      async () => !(await windows(endpoint)).includes('report.docx'),
      20_000,
      'the window to close',
    );
  });

  it('with a Calc sheet open the walk finishes (bounded) and shows cell text', async () => {
    await sh(endpoint, "printf 'Name,Qty\\nApple,3\\nPear,5\\n' > /tmp/docs/fruit.csv");
    await convertInside(endpoint, '/tmp/docs/fruit.csv', 'xlsx');
    await sh(endpoint, 'cp /tmp/docs/fruit.xlsx ~/fruit.xlsx');
    const opened = await post(
      endpoint,
      '/setup/open_file',
      { path: '/home/user/fruit.xlsx' },
      90_000,
    );
    expect(opened.status).toBe(200);
    const xml = await waitFor(
      async () => {
        const tree = await accessibilityTree(endpoint);
        return tree.includes('>Apple</table-cell>') ? tree : undefined;
      },
      60_000,
      'Calc cells in the accessibility tree',
    );
    expect(xml).toMatch(/<table-cell name="A2"[^>]*>Apple<\/table-cell>/);
    expect(xml).toMatch(/<table-cell name="B3"[^>]*>5<\/table-cell>/);
    // Only the cells on screen, never the sheet's 2^31 - 1 children.
    expect((xml.match(/<table-cell /g) ?? []).length).toBeLessThan(5_000);
  });

  it('google-chrome (Chromium) exposes CDP through the endpoint chromiumUrl', async () => {
    // What upstream task configs run.
    await post(endpoint, '/setup/launch', {
      command: ['google-chrome', '--remote-debugging-port=1337'],
    });
    await post(endpoint, '/setup/launch', {
      command: 'socat tcp-listen:9222,fork tcp:localhost:1337',
      shell: true,
    });
    const url = new URL('/json/version', endpoint.chromiumUrl);
    // A DevTools endpoint's answer once `wanted` holds for it (undefined until then).
    const devtools = (path: string, wanted: (status: number, text: string) => boolean) =>
      new Promise<string | undefined>(resolve => {
        const call = request(new URL(path, endpoint.chromiumUrl), response => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () =>
            resolve(wanted(response.statusCode ?? 0, text) ? text : undefined),
          );
        });
        call.on('error', () => resolve(undefined));
        call.end();
      });
    const version = await waitFor(
      () => devtools('/json/version', status => status === 200),
      30_000,
      'Chromium DevTools',
    );
    expect(JSON.parse(version)).toMatchObject({ Browser: expect.stringMatching(/^Chrome\//) });
    expect(JSON.parse(version).webSocketDebuggerUrl).toContain(`ws://${url.host}/`);
    expect((await sh(endpoint, 'pgrep -x chromium | head -1')).output.trim()).not.toBe('');
    // Google as the default search engine (sandbox-chromium.ts): the new tab is Chromium's own Google
    // page (its one-google-bar frame), as upstream's Chrome shows it, not Debian's DuckDuckGo third-party page.
    const pages = await waitFor(
      () => devtools('/json/list', (_status, text) => /new-tab-page/.test(text)),
      30_000,
      "Chromium's new-tab page",
    );
    const urls = (JSON.parse(pages) as { url: string }[]).map(page => page.url);
    expect(urls.some(url => url.startsWith('chrome-untrusted://new-tab-page/'))).toBe(true);
    expect(urls.filter(url => url.includes('new-tab-page-third-party'))).toEqual([]);
    // Bound inside the sandbox only: the host's /etc is untouched.
    expect(existsSync('/etc/chromium/policies/recommended/osharm.json')).toBe(false);
    // The shim names a new profile "Work", as upstream's Chrome profile is: the toolbar's profile
    // button (Chromium's own) reads it; a new unnamed profile's reads "You".
    const tree = await waitFor(
      async () => {
        const xml = await accessibilityTree(endpoint);
        return /<push-button name="(Work|You)"/.test(xml) && xml;
      },
      30_000,
      "Chromium's profile button",
    );
    expect(tree).toMatch(/<push-button name="Work"/);
    expect(tree).not.toMatch(/<push-button name="You"/);
  });
});
