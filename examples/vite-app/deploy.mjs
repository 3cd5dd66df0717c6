// A deploy as a returning visitor lives it, in Chromium (Debian's, driven by playwright-core)
// with a persistent profile: a tab loads release 1; the caller deploys release 2 on the same
// address (it writes a line on stdin when done); the open tab then imports a lazy chunk of
// release 1, and a reload fetches release 2, whose changed bundle can come as a delta against
// the one the profile holds. Prints one JSON line after each phase.
//
//     node deploy.mjs http://127.0.0.1:3000/ <profile folder>
//
// The page's `window.loadLater()` imports a lazy chunk and resolves to what it says;
// `document.documentElement.dataset.release` is set by the entry bundle.
import { createInterface } from "node:readline";
import { launchWithProfile, watch } from "./chromium.mjs";

const [url, profile] = process.argv.slice(2);
if (!url || !profile) {
  console.error("usage: node deploy.mjs <url> <profile folder>");
  process.exit(2);
}
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const context = await launchWithProfile(profile);
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const { consoleErrors, pageErrors } = await watch(page);
  const responses = [];
  page.on("response", async (response) => {
    const seen = {
      url: new URL(response.url()).pathname,
      status: response.status(),
      encoding: response.headers()["content-encoding"] ?? null,
      useAsDictionary: response.headers()["use-as-dictionary"] ?? null,
      availableDictionary: (await response.request().allHeaders())["available-dictionary"] ?? null,
    };
    try {
      seen.bodyBytes = (await response.request().sizes()).responseBodySize;
    } catch {
      seen.bodyBytes = null;
    }
    responses.push(seen);
  });
  // Response handlers finish after the load; give them a moment before reading what they saw.
  const facts = async () => {
    await page.waitForTimeout(500);
    return {
      release: await page.evaluate(() => document.documentElement.dataset.release ?? null),
      consoleErrors: consoleErrors.splice(0),
      pageErrors: pageErrors.splice(0),
      responses: responses.splice(0),
    };
  };

  await page.goto(url, { waitUntil: "networkidle", timeout: 20000 });
  console.log(JSON.stringify({ phase: "release 1", ...(await facts()) }));

  // The caller deploys release 2 on the same address.
  await lines.next();
  const later = await page.evaluate(() => window.loadLater().catch((error) => `failed: ${error}`));
  console.log(JSON.stringify({ phase: "open tab", later, ...(await facts()) }));

  await page.reload({ waitUntil: "networkidle", timeout: 20000 });
  const laterAfter = await page.evaluate(() => window.loadLater().catch((error) => `failed: ${error}`));
  console.log(JSON.stringify({ phase: "reload", later: laterAfter, ...(await facts()) }));
} finally {
  await context.close();
}
