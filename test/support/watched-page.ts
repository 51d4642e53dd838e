/** A browser page that records what a test of an offline page must check: requests that left the machine, script errors, and what its policy refused. */
import type { Browser, Page } from "playwright-core";

export interface WatchedPage {
  readonly page: Page;
  /** URLs requested from anywhere but localhost (data: and blob: URLs are local). */
  readonly foreign: string[];
  readonly pageErrors: string[];
  /** What the page's Content-Security-Policy refused (a style, an image, a form target it needed). */
  readonly refusedByPolicy: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  const pageErrors: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (
      !["127.0.0.1", "localhost"].includes(url.hostname) &&
      url.protocol !== "data:" &&
      url.protocol !== "blob:"
    )
      foreign.push(request.url());
  });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  const refusedByPolicy: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text()))
      refusedByPolicy.push(message.text());
  });
  return { page, foreign, pageErrors, refusedByPolicy };
}
