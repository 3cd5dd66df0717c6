// Opens a page in Chromium (Debian's, driven by playwright-core), edits a file of the folder it
// came from, and prints as JSON how many times the page loaded and how long after the edit the
// reload came (or null): the live-reload test's eyes.
//
//     node reload.mjs <url> <file to edit> <text to write>
import { writeFileSync } from "node:fs";
import { launch, watch } from "./chromium.mjs";

const [url, file, text] = process.argv.slice(2);
if (!url || !file || text === undefined) {
  console.error("usage: node reload.mjs <url> <file> <text>");
  process.exit(2);
}
const browser = await launch();
try {
  const page = await browser.newPage();
  const { consoleErrors } = await watch(page);
  let loads = 0;
  let reloadedAt = null;
  page.on("load", () => {
    loads += 1;
    if (loads === 2) reloadedAt = Date.now();
  });
  await page.goto(url, { waitUntil: "load", timeout: 20000 });
  // Let the reload script connect to its event stream before the edit.
  await page.waitForTimeout(500);
  const editedAt = Date.now();
  writeFileSync(file, text);
  const deadline = editedAt + 10000;
  while (reloadedAt === null && Date.now() < deadline) {
    await page.waitForTimeout(20);
  }
  const heading = await page.evaluate(() => document.querySelector("h1")?.textContent ?? null);
  console.log(
    JSON.stringify({
      loads,
      reloadMillis: reloadedAt === null ? null : reloadedAt - editedAt,
      heading,
      consoleErrors,
    }),
  );
} finally {
  await browser.close();
}
