// Opens a page the Rust server renders beside Vite's dev server in Chromium (Debian's, driven
// by playwright-core), clicks the counter, edits a module of the front end once Vite's client
// is connected, and prints as JSON what the hot update did: the loads (1: no navigation), how
// long after the edit the DOM showed it (or null), the counter's text after it (its state
// survived when it still says 1), console errors, CSP violations and failed requests.
//
//     node hmr.mjs <url> <file> <text to find> <text to put instead> <JS expression: edited?>
import { readFileSync, writeFileSync } from "node:fs";
import { launch, watch } from "./chromium.mjs";

const [url, file, find, replace, edited] = process.argv.slice(2);
if (!url || !file || !find || replace === undefined || !edited) {
  console.error("usage: node hmr.mjs <url> <file> <find> <replace> <expression>");
  process.exit(2);
}
const browser = await launch();
try {
  const page = await browser.newPage();
  const { consoleErrors, pageErrors } = await watch(page);
  const failed = [];
  let connected = false;
  page.on("console", (message) => {
    if (message.text().includes("[vite] connected")) connected = true;
  });
  page.on("requestfailed", (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => {
    if (response.status() >= 400) failed.push(`${response.url()} ${response.status()}`);
  });
  let loads = 0;
  page.on("load", () => (loads += 1));
  await page.goto(url, { waitUntil: "load", timeout: 30000 });
  const counterSays = (text) =>
    page.waitForFunction(
      (text) => document.querySelector("#counter")?.textContent?.trim() === text,
      text,
      { timeout: 15000 },
    );
  await counterSays("Count is 0");
  await page.click("#counter");
  await counterSays("Count is 1");
  const deadline = Date.now() + 15000;
  while (!connected && Date.now() < deadline) await page.waitForTimeout(20);
  const editedBefore = await page.evaluate(edited);
  const source = readFileSync(file, "utf8");
  if (!source.includes(find)) throw new Error(`${file} has no ${JSON.stringify(find)}`);
  const editedAt = Date.now();
  writeFileSync(file, source.replace(find, replace));
  // Polled from here: the page's CSP refuses a function made from a string in it.
  let updateMillis = null;
  while (updateMillis === null && Date.now() < editedAt + 10000) {
    if (await page.evaluate(edited)) updateMillis = Date.now() - editedAt;
    else await page.waitForTimeout(20);
  }
  // A navigation the update caused would show here.
  await page.waitForTimeout(500);
  const facts = await page.evaluate(() => ({
    counterText: document.querySelector("#counter")?.textContent?.trim() ?? null,
    violations: window.__violations,
  }));
  console.log(
    JSON.stringify({
      connected,
      editedBefore,
      updateMillis,
      loads,
      ...facts,
      consoleErrors,
      pageErrors,
      failed,
    }),
  );
} finally {
  await browser.close();
}
