// The SPA in a real browser against the real server: type an address, see the city and the
// marker, use the keyboard, follow a deep link, open the memory view, and never log an error.
// The screenshot is kept as a test artifact in target/e2e/.

import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const workspace = resolve(here, "../../..");
const binary = process.env.GEO_SERVER_BIN ?? join(workspace, "target/debug/geo-server");
const artifacts = join(workspace, "target/e2e");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";

const servers = [];
let base;
let privateBase;
let browser;

/** Starts the server on a free port with `flags`; resolves with its base URL from the
 * "listening" log line. */
function startServer(flags = []) {
  return new Promise((resolvePromise, reject) => {
    const server = spawn(binary, ["--addr", "127.0.0.1:0", ...flags], { env: { ...process.env, NO_COLOR: "1" } });
    servers.push(server);
    server.on("error", reject);
    server.on("exit", (code) => reject(new Error(`geo-server exited early (${code})`)));
    createInterface({ input: server.stdout }).on("line", (line) => {
      const match = /listening addr=(\S+)/.exec(line);
      if (match) resolvePromise(`http://${match[1]}`);
    });
  });
}

before(async () => {
  // The memory view reads /metrics, which a server shows only when told to.
  base = await startServer(["--public-metrics"]);
  privateBase = await startServer();
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  for (const server of servers) {
    server.removeAllListeners("exit");
    server.kill("SIGTERM");
  }
});

/** A new page that records console errors and uncaught exceptions. */
async function openPage(viewport = { width: 1280, height: 860 }) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`exception: ${error.message}`));
  return { page, problems };
}

test("typing an address shows its city and puts the marker on the map", async () => {
  const { page, problems } = await openPage();
  await page.goto(base + "/");
  await page.fill("#address", "81.2.69.160");
  await page.press("#address", "Enter");
  await page.waitForFunction(() => document.querySelector("#place").textContent.includes("London"));
  assert.equal(await page.textContent("#city"), "London");
  assert.equal(await page.textContent("#network"), "81.2.68.0/23");
  assert.equal(await page.textContent("#iso"), "GB");
  assert.equal(new URL(page.url()).pathname, "/lookup/81.2.69.160", "the address is in the URL");
  const marker = page.locator("#marker");
  assert.ok(await marker.isVisible(), "the marker is shown");
  const left = await marker.evaluate((element) => parseFloat(element.style.left));
  const top = await marker.evaluate((element) => parseFloat(element.style.top));
  assert.ok(Math.abs(left - ((-0.0931 + 180) / 360) * 100) < 0.01, `marker left ${left}%`);
  assert.ok(Math.abs(top - ((90 - 51.5142) / 180) * 100) < 0.01, `marker top ${top}%`);
  await page.screenshot({ path: join(artifacts, "spa-lookup.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("the keyboard alone reaches every control, and a miss is explained", async () => {
  const { page, problems } = await openPage();
  await page.goto(base + "/");
  const focused = [];
  for (let step = 0; step < 6; step++) {
    await page.keyboard.press("Tab");
    focused.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent.trim()));
  }
  for (const control of ["address", "lookup-button", "me-button"]) {
    assert.ok(focused.includes(control), `Tab reaches #${control}: ${focused}`);
  }
  await page.focus("#me-button");
  await page.keyboard.press("Enter");
  // The browser comes from 127.0.0.1, which no GeoIP database knows.
  await page.waitForSelector("#error:not([hidden])");
  assert.match(await page.textContent("#error"), /not in the database/);
  assert.deepEqual(problems.filter((problem) => !problem.includes("404")), []);
  await page.close();
});

test("a deep link loads the app and looks the address up", async () => {
  const { page, problems } = await openPage();
  await page.goto(base + "/lookup/2001:4860:4860::8888");
  await page.waitForFunction(() => document.querySelector("#city").textContent === "Mountain View");
  assert.equal(await page.inputValue("#address"), "2001:4860:4860::8888");
  assert.ok(await page.locator("#marker").isVisible());
  assert.deepEqual(problems, []);
  await page.close();
});

test("the memory view charts the server's figures", async () => {
  const { page, problems } = await openPage();
  await page.goto(base + "/");
  await page.click("#nav-stats");
  await page.waitForFunction(() => document.querySelectorAll("#chart rect").length === 4);
  assert.equal(new URL(page.url()).pathname, "/stats");
  assert.equal(await page.textContent("#db-mode"), "embed");
  const labels = await page.locator("#chart text").allTextContents();
  assert.ok(labels.some((label) => label.includes("file-backed")), labels.join(" | "));
  await page.screenshot({ path: join(artifacts, "spa-stats.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("the memory view of a server that keeps its figures private says so", async () => {
  const { page, problems } = await openPage();
  await page.goto(privateBase + "/stats");
  await page.waitForFunction(() => document.querySelector("#stats-time").textContent.includes("private"));
  assert.equal(await page.textContent("#db-mode"), "—");
  assert.equal(await page.locator("#chart rect").count(), 0);
  // The one thing logged is the browser's own line for the 404 the page asked for.
  assert.deepEqual(problems.filter((problem) => !problem.includes("404")), []);
  await page.close();
});

test("the browser gets the app's script in the smallest encoding it accepts", async () => {
  const { page, problems } = await openPage();
  const scriptResponse = page.waitForResponse((response) => new URL(response.url()).pathname === "/app.js");
  await page.goto(base + "/lookup/2001:4860:4860::8888");
  const response = await scriptResponse;
  const asked = (await response.request().allHeaders())["accept-encoding"] ?? "";
  const headers = await response.allHeaders();
  assert.match(asked, /\bbr\b/, `Chromium offers brotli: ${asked}`);
  assert.ok(
    ["br", "zstd"].includes(headers["content-encoding"]),
    `content-encoding ${headers["content-encoding"]} for accept-encoding ${asked}`,
  );
  assert.equal(headers["vary"], "accept-encoding");
  assert.match(headers["etag"], /-(br|zst)"$/, "the variant's own ETag");
  // The script decoded and ran: it read the deep link and looked the address up.
  await page.waitForFunction(() => document.querySelector("#city").textContent === "Mountain View");
  assert.deepEqual(problems, []);
  await page.close();
});

test("the marker is drawn on the looked-up place, on a desktop and on a phone", async () => {
  const places = [
    ["81.2.69.160", "London"],
    ["1.1.1.1", "Sydney"],
    ["62.14.64.1", "São Paulo"],
  ];
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    const { page, problems } = await openPage(viewport);
    for (const [address, city] of places) {
      const answer = await (await fetch(`${base}/geo/${address}`)).json();
      const { latitude, longitude } = answer.location;
      await page.goto(`${base}/lookup/${address}`);
      await page.waitForFunction((name) => document.querySelector("#city").textContent === name, city);
      await page.locator("#marker").waitFor({ state: "visible" });
      const [marker, map] = await page.evaluate(() =>
        ["#marker", ".map img"].map((selector) => {
          const box = document.querySelector(selector).getBoundingClientRect();
          return { left: box.left, top: box.top, width: box.width, height: box.height };
        }),
      );
      // world.svg is equirectangular: the point is a fraction of the image's own rendered box.
      const expectedX = map.left + ((longitude + 180) / 360) * map.width;
      const expectedY = map.top + ((90 - latitude) / 180) * map.height;
      const centreX = marker.left + marker.width / 2;
      const centreY = marker.top + marker.height / 2;
      const tolerance = 0.01 * map.width;
      const where = `${city} at ${viewport.width}px: marker (${centreX.toFixed(1)}, ${centreY.toFixed(1)}), ` +
        `expected (${expectedX.toFixed(1)}, ${expectedY.toFixed(1)}), tolerance ${tolerance.toFixed(1)}`;
      assert.ok(Math.abs(centreX - expectedX) <= tolerance, where);
      assert.ok(Math.abs(centreY - expectedY) <= tolerance, where);
    }
    if (viewport.width < 500) await page.screenshot({ path: join(artifacts, "spa-phone.png") });
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("nothing on the page moves when an answer or an error arrives, on a phone and a desktop", async () => {
  // Lighthouse's mobile preset is 412 x 823; its layout-shift score is the sum of these entries.
  for (const viewport of [{ width: 412, height: 823 }, { width: 1280, height: 860 }]) {
    for (const [address, ready] of [
      ["8.8.8.8", "#result:not([data-empty])"],
      ["81.2.69.160", "#result:not([data-empty])"],
      ["10.0.0.1", "#error:not([hidden])"],
    ]) {
      const { page, problems } = await openPage(viewport);
      await page.addInitScript(() => {
        window.layoutShifts = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            const moved = entry.sources.map((source) => source.node?.id || source.node?.nodeName);
            window.layoutShifts.push({ value: entry.value, moved });
          }
        }).observe({ type: "layout-shift", buffered: true });
      });
      await page.goto(`${base}/lookup/${address}`);
      await page.waitForSelector(ready);
      // Shifts are reported after the frame that made them.
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      const shifts = await page.evaluate(() => window.layoutShifts);
      assert.deepEqual(shifts, [], `${address} at ${viewport.width}px moved: ${JSON.stringify(shifts)}`);
      assert.deepEqual(problems.filter((problem) => !problem.includes("404")), []);
      await page.close();
    }
  }
});
