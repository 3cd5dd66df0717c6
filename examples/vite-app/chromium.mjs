// What the Chromium scripts share (browser.mjs, deploy.mjs, and bindery's tests' reload.mjs and
// hmr.mjs): Debian's Chromium (or $CHROMIUM) driven by playwright-core, and what a page must not
// show recorded: its console errors, its uncaught errors and its CSP violations.
import { chromium } from "playwright-core";

const options = {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
};

/** A new browser. */
export const launch = () => chromium.launch(options);

/** A browser context whose profile is kept in `folder`, as a returning visitor's is. */
export const launchWithProfile = (folder) => chromium.launchPersistentContext(folder, options);

/**
 * Records `page`'s console errors and uncaught errors in the lists it returns, and its CSP
 * violations in `window.__violations` (registered before the page's own scripts; DevTools'
 * scripts are not subject to its policy).
 */
export async function watch(page) {
  const seen = { consoleErrors: [], pageErrors: [] };
  page.on("console", (message) => {
    if (message.type() === "error") seen.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => seen.pageErrors.push(String(error)));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      window.__violations.push(`${event.effectiveDirective} ${event.blockedURI}`),
    );
  });
  return seen;
}
