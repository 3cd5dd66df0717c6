// Loads a page in Chromium (Debian's, driven by playwright-core) and prints what happened as
// JSON: console errors (an integrity failure is one), page errors, CSP violations, whether the
// lazily imported counter ran, the stylesheet applied and the images loaded, whether the page's
// inline script ran and an injected one was refused, and every response's status and headers.
//
//     node browser.mjs http://127.0.0.1:3000/ [--tamper <path part>] [--inject]
//
// With --tamper, the responses whose URL contains that part arrive with one byte changed, as a
// compromised CDN would send them: their integrity check must refuse them. With --inject, a
// script is added to the loaded page, as an XSS would: its CSP must refuse it.
import { launch, watch } from "./chromium.mjs";

const url = process.argv[2];
const tamperAt = process.argv.indexOf("--tamper");
const tamper = tamperAt > 0 ? process.argv[tamperAt + 1] : null;
const inject = process.argv.includes("--inject");
if (!url) {
  console.error("usage: node browser.mjs <url> [--tamper <path part>] [--inject]");
  process.exit(2);
}
const browser = await launch();
try {
  const page = await browser.newPage();
  const { consoleErrors, pageErrors } = await watch(page);
  const responses = [];
  page.on("response", (response) =>
    responses.push({
      url: new URL(response.url()).pathname,
      status: response.status(),
      cacheControl: response.headers()["cache-control"] ?? null,
      link: response.headers()["link"] ?? null,
      csp: response.headers()["content-security-policy"] ?? null,
    }),
  );
  if (tamper) {
    await page.route(`**/*${tamper}*`, async (route) => {
      const original = await route.fetch();
      const body = Buffer.from(await original.body());
      body[body.length - 2] ^= 1;
      await route.fulfill({ response: original, body });
    });
  }
  await page.goto(url, { waitUntil: "load", timeout: 20000 });
  let counter = true;
  try {
    await page.waitForFunction(
      () => document.querySelector("#counter")?.textContent === "Count is 0",
      null,
      { timeout: 5000 },
    );
    await page.click("#counter");
  } catch {
    counter = false;
  }
  if (inject) {
    await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__injected = true;";
      document.head.append(script);
    });
    await page.waitForTimeout(200);
  }
  const facts = await page.evaluate(() => ({
    counterText: document.querySelector("#counter")?.textContent ?? null,
    heading: document.querySelector("h1")?.textContent ?? null,
    background: getComputedStyle(document.querySelector("#counter") ?? document.body).backgroundColor,
    heroWidth: document.querySelector(".hero img.base")?.naturalWidth ?? 0,
    inlineRan: document.documentElement.dataset.inline === "ran",
    injectedRan: window.__injected === true,
    violations: window.__violations,
  }));
  console.log(
    JSON.stringify({ counter, ...facts, consoleErrors, pageErrors, responses }),
  );
} finally {
  await browser.close();
}
