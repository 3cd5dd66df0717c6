// Loads a page in Chromium (Debian's, driven by playwright-core) and prints what happened as
// JSON: console errors (an SRI failure is one), page errors, whether the dynamic import ran and
// the stylesheet and image applied, and the status and Cache-Control of every request.
//
//     node browser.mjs http://127.0.0.1:3000/
import { chromium } from "playwright-core";

const url = process.argv[2];
if (!url) {
  console.error("usage: node browser.mjs <url>");
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  const consoleErrors = [];
  const pageErrors = [];
  const responses = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("response", (response) =>
    responses.push({
      url: new URL(response.url()).pathname,
      status: response.status(),
      cacheControl: response.headers()["cache-control"] ?? null,
    }),
  );
  await page.goto(url, { waitUntil: "load", timeout: 20000 });
  let loaded = true;
  try {
    await page.waitForSelector("#status[data-loaded=yes]", { timeout: 10000 });
  } catch {
    loaded = false;
  }
  const facts = await page.evaluate(() => {
    const image = document.querySelector("#logo");
    return {
      status: document.querySelector("#status")?.textContent ?? null,
      color: getComputedStyle(document.querySelector("#status")).color,
      imageWidth: image ? image.naturalWidth : 0,
    };
  });
  console.log(JSON.stringify({ loaded, ...facts, consoleErrors, pageErrors, responses }));
} finally {
  await browser.close();
}
