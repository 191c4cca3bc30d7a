import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  CHROMIUM_PATH,
  startHeadlessChromium,
} from './__fixtures__/headless-chromium';
import type { HeadlessChromium } from './__fixtures__/headless-chromium';
import { closeChromeTabs, compareUrls, openChromeTabs } from './chrome-tabs';

describe('compareUrls (upstream compare_urls)', () => {
  it.each([
    ['https://www.example.com/', 'https://example.com', true],
    ['HTTPS://Example.COM/path', 'https://example.com/path', true],
    ['https://example.com/path/', 'https://example.com/path', false],
    ['https://example.com/?q=1', 'https://example.com?q=1', true],
    ['https://example.com/?q=1', 'https://example.com/?q=2', false],
    ['http://example.com/', 'https://example.com/', false],
    ['//example.com/a', 'http://example.com/a', true],
  ])('%s vs %s → %s', (first, second, expected) => {
    expect(compareUrls(first, second)).toBe(expected);
  });

  it('null only equals null', () => {
    expect(compareUrls(null, null)).toBe(true);
    expect(compareUrls(null, 'https://example.com')).toBe(false);
  });
});

/** A loopback port nothing listens on (it was free a moment ago). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>(resolve => server.close(() => resolve()));
  return port;
}

describe('connection', () => {
  it('gives up after the configured attempts with a clear error', async () => {
    const port = await freePort();
    const messages: string[] = [];
    await expect(
      openChromeTabs(['http://127.0.0.1/'], {
        cdpUrl: `http://127.0.0.1:${port}`,
        connectAttempts: 2,
        connectIntervalMs: 20,
        connectTimeoutMs: 2_000,
        logger: message => messages.push(message),
      }),
    ).rejects.toThrow(
      `cannot connect to Chrome's DevTools at http://127.0.0.1:${port} after 2 attempts`,
    );
    expect(messages).toHaveLength(1);
  });
});

if (!chromiumAvailable()) {
  console.warn(
    `chrome-tabs.test.ts: ${CHROMIUM_PATH} is not installed; the CDP tests against a real headless Chromium are skipped (apt-get install -y chromium)`,
  );
}

describe.skipIf(!chromiumAvailable())('against a real headless Chromium', () => {
  let chromium: HeadlessChromium;
  let pages: Server;
  let origin: string;
  const hanging: ServerResponse[] = [];

  beforeAll(async () => {
    pages = createServer((request, response) => {
      if (request.url?.startsWith('/slow')) {
        hanging.push(response);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<title>page ${request.url}</title><p>${request.url}</p>`);
    });
    await new Promise<void>(resolve => pages.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    chromium = await startHeadlessChromium();
  }, 30_000);

  afterAll(async () => {
    await chromium?.close();
    for (const response of hanging) response.destroy();
    pages.closeAllConnections();
    await new Promise<void>(resolve => pages.close(() => resolve()));
  });

  it('opens one tab per URL and closes the default tab after the first', async () => {
    expect(await chromium.tabUrls()).toEqual(['about:blank']);
    const result = await openChromeTabs([`${origin}/one`, `${origin}/two`], {
      cdpUrl: chromium.cdpUrl,
    });
    expect(result).toEqual({
      opened: [`${origin}/one`, `${origin}/two`],
      failedLoads: [],
      closedDefaultTabs: 1,
    });
    // disconnecting left the browser and its tabs alone
    expect((await chromium.tabUrls()).sort()).toEqual([`${origin}/one`, `${origin}/two`]);
  }, 30_000);

  it('closes the tabs matching the URLs (compare_urls rules)', async () => {
    // `/one` and `/two` are open from the previous test
    const closed = await closeChromeTabs([`${origin}/two`, 'http://127.0.0.1:1/none'], {
      cdpUrl: chromium.cdpUrl,
    });
    expect(closed).toEqual([`${origin}/two`]);
    expect(await chromium.tabUrls()).toEqual([`${origin}/one`]);
  }, 30_000);

  it('a navigation timeout only warns; the tab stays open', async () => {
    const messages: string[] = [];
    const result = await openChromeTabs([`${origin}/slow`], {
      cdpUrl: chromium.cdpUrl,
      gotoTimeoutMs: 500,
      logger: message => messages.push(message),
    });
    expect(result.failedLoads).toEqual([
      { url: `${origin}/slow`, error: 'no load within the navigation timeout of 500 ms' },
    ]);
    // as upstream, the first tab there was (`/one`) is closed after the first URL
    expect(result.closedDefaultTabs).toBe(1);
    expect(messages.join('\n')).toContain('the tab stays open');
    expect(await chromium.tabUrls()).toHaveLength(1);
    // let the load end: Playwright's connectOverCDP waits for tabs that are still loading
    for (const response of hanging.splice(0)) response.end('<title>late</title>');
  }, 30_000);

  it('any other navigation error is listed too (upstream catches every goto error)', async () => {
    const closedPort = await freePort();
    const result = await openChromeTabs([`http://127.0.0.1:${closedPort}/refused`], {
      cdpUrl: chromium.cdpUrl,
    });
    expect(result.failedLoads).toHaveLength(1);
    expect(result.failedLoads[0]).toMatchObject({
      url: `http://127.0.0.1:${closedPort}/refused`,
      error: expect.stringMatching(/ERR_CONNECTION_REFUSED/),
    });
    expect(result.opened).toHaveLength(1);
  }, 30_000);
});
