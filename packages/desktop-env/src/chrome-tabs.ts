import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { sleep } from './backoff';

/** Options of {@link openChromeTabs} and {@link closeChromeTabs}. */
export interface ChromeTabsOptions {
  /** The guest Chrome's DevTools endpoint as the host reaches it, e.g. `http://127.0.0.1:9222`. */
  readonly cdpUrl: string;
  /** Connection attempts (Chrome may still be starting). @default 15 (upstream) */
  readonly connectAttempts?: number;
  /** Pause between connection attempts in ms. @default 5000 (upstream) */
  readonly connectIntervalMs?: number;
  /** Timeout of one connection attempt in ms. @default 30000 */
  readonly connectTimeoutMs?: number;
  /** Navigation timeout per tab in ms; reaching it only warns, as upstream. @default 60000 */
  readonly gotoTimeoutMs?: number;
  readonly abortSignal?: AbortSignal;
  /** Warnings (navigation timeouts) and connection retries. */
  readonly logger?: (message: string) => void;
}

/** What {@link openChromeTabs} did. */
export interface OpenChromeTabsResult {
  /** URLs the opened tabs show after loading (may differ from the requested ones by redirects). */
  readonly opened: readonly string[];
  /**
   * Tabs whose page did not load (a timeout or any navigation error; the tab stays open), which
   * upstream only logs.
   */
  readonly failedLoads: readonly { readonly url: string; readonly error: string }[];
  /** Number of pre-existing tabs closed (the default tab, after the first URL). */
  readonly closedDefaultTabs: number;
}

/**
 * Opens one tab per URL in the guest's Chrome over CDP, in the first browser context, then closes
 * the browser's original tab after the first URL, as upstream's `chrome_open_tabs` step does. A
 * page that does not load (timeout or navigation error) is listed in `failedLoads` and the tab stays
 * open, as upstream only logs it. Disconnects without closing the browser.
 * @throws {Error} when no connection can be made within the attempts.
 */
export async function openChromeTabs(
  urls: readonly string[],
  options: ChromeTabsOptions,
): Promise<OpenChromeTabsResult> {
  return withBrowser(options, async browser => {
    const context = browser.contexts()[0];
    if (!context) throw new Error(`Chrome at ${options.cdpUrl} has no browser context`);
    const originalPages = context.pages();
    const opened: string[] = [];
    const failedLoads: { url: string; error: string }[] = [];
    let closedDefaultTabs = 0;
    for (const [index, url] of urls.entries()) {
      options.abortSignal?.throwIfAborted();
      const page = await context.newPage();
      try {
        await page.goto(url, { timeout: options.gotoTimeoutMs ?? 60_000 });
      } catch (error) {
        options.abortSignal?.throwIfAborted();
        const reason = isTimeout(error)
          ? `no load within the navigation timeout of ${options.gotoTimeoutMs ?? 60_000} ms`
          : firstLine(error);
        failedLoads.push({ url, error: reason });
        options.logger?.(`opening ${url}: ${reason}; the tab stays open`);
      }
      opened.push(page.url());
      // upstream closes `context.pages[0]` once, after the first URL: the browser's own start tab
      const defaultTab = originalPages[0];
      if (index === 0 && defaultTab && !defaultTab.isClosed()) {
        await defaultTab.close();
        closedDefaultTabs++;
      }
    }
    return { opened, failedLoads, closedDefaultTabs };
  });
}

/**
 * Closes, for each URL, the first tab whose URL matches it by {@link compareUrls} (as upstream's
 * `chrome_close_tabs` step). Returns the URLs of the closed tabs.
 */
export async function closeChromeTabs(
  urls: readonly string[],
  options: ChromeTabsOptions,
): Promise<readonly string[]> {
  return withBrowser(options, async browser => {
    const context = browser.contexts()[0];
    if (!context) throw new Error(`Chrome at ${options.cdpUrl} has no browser context`);
    const closed: string[] = [];
    for (const url of urls) {
      const page = context.pages().find(candidate => compareUrls(candidate.url(), url));
      if (page) {
        closed.push(page.url());
        await page.close();
      }
    }
    return closed;
  });
}

/**
 * URL equality as upstream's metrics helper `compare_urls` judges it: a missing scheme is `http`,
 * scheme and host are lower-cased, `www.` is dropped from the host, and a bare `/` path is empty.
 * Query and fragment must match exactly.
 */
export function compareUrls(first: string | null | undefined, second: string | null | undefined) {
  if (first == null || second == null) return first === second;
  return normalizeUrl(first) === normalizeUrl(second);
}

function normalizeUrl(url: string): string {
  // RFC 3986 split, like Python's urlparse: scheme, netloc, path, query, fragment
  const match = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(
    url,
  );
  if (!match) return url;
  const [, scheme = 'http', netloc = '', path = '', query = '', fragment = ''] = match;
  return `${scheme.toLowerCase()}://${netloc.toLowerCase().replaceAll('www.', '')}${
    path === '/' ? '' : path
  }${query === '?' ? '' : query}${fragment === '#' ? '' : fragment}`;
}

async function withBrowser<T>(
  options: ChromeTabsOptions,
  work: (browser: Browser) => Promise<T>,
): Promise<T> {
  const browser = await connect(options);
  try {
    return await work(browser);
  } finally {
    // for a CDP connection, close() only disconnects: the guest's Chrome and its tabs stay
    await browser.close().catch(() => undefined);
  }
}

async function connect(options: ChromeTabsOptions): Promise<Browser> {
  const attempts = Math.max(1, options.connectAttempts ?? 15);
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.abortSignal?.throwIfAborted();
    try {
      return await chromium.connectOverCDP(options.cdpUrl, {
        timeout: options.connectTimeoutMs ?? 30_000,
      });
    } catch (error) {
      lastError = error;
      if (attempt < attempts) {
        options.logger?.(
          `cannot connect to Chrome at ${options.cdpUrl} (attempt ${attempt}/${attempts}): ${firstLine(error)}`,
        );
        await sleep(options.connectIntervalMs ?? 5_000, options.abortSignal);
      }
    }
  }
  throw new Error(
    `cannot connect to Chrome's DevTools at ${options.cdpUrl} after ${attempts} attempts: ${firstLine(lastError)}`,
    { cause: lastError },
  );
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
