/** A browser page that records what a test of an offline page must check: requests that left the machine, and script errors. */
import type { Browser, Page } from "playwright-core";

export interface WatchedPage {
  readonly page: Page;
  /** URLs requested from anywhere but localhost (data: and blob: URLs are local). */
  readonly foreign: string[];
  readonly pageErrors: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  const pageErrors: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (!["127.0.0.1", "localhost"].includes(url.hostname) && url.protocol !== "data:" && url.protocol !== "blob:") foreign.push(request.url());
  });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return { page, foreign, pageErrors };
}
