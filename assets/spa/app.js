// bindery geo: the single-page app. Views: "/" and "/lookup/<ip>" (lookup), "/stats" (memory).
// Everything it loads is embedded in the same binary; no third-party requests.

const $ = (selector) => document.querySelector(selector);

/** The flag emoji of an ISO 3166-1 alpha-2 code, from regional indicator symbols. */
function flag(isoCode) {
  if (!/^[A-Z]{2}$/.test(isoCode ?? "")) return "🌐";
  return String.fromCodePoint(...[...isoCode].map((letter) => 0x1f1e6 + letter.charCodeAt(0) - 65));
}

function show(element, visible) {
  element.hidden = !visible;
}

function setText(id, text) {
  const element = $(id);
  element.textContent = text ?? "—";
  // Values keep to one line (their place is reserved); the whole value is the title.
  if (element.tagName === "DD" || element.id === "place") element.title = text ?? "";
}

/** Puts the card back to its placeholders: its size never changes, only its text. */
function clearResult() {
  for (const id of ["#flag", "#iso"]) $(id).textContent = "";
  setText("#place", "No address looked up yet");
  for (const id of ["#ip", "#network", "#country", "#region", "#city", "#coordinates", "#timezone"]) setText(id, null);
  $("#result").setAttribute("data-empty", "");
}

function showError(message) {
  setText("#error", message);
  show($("#error"), Boolean(message));
}

function placeMarker(latitude, longitude, caption) {
  const marker = $("#marker");
  if (typeof latitude !== "number" || typeof longitude !== "number") {
    show(marker, false);
    setText("#map-caption", caption);
    return;
  }
  // world.svg is equirectangular on a 360 x 180 box: x = longitude + 180, y = 90 - latitude.
  marker.style.left = `${((longitude + 180) / 360) * 100}%`;
  marker.style.top = `${((90 - latitude) / 180) * 100}%`;
  show(marker, true);
  setText("#map-caption", caption);
}

function render(answer) {
  const place = [answer.city, answer.subdivisions?.[0]?.name, answer.country?.name].filter(Boolean).join(", ");
  setText("#flag", flag(answer.country?.iso_code));
  // The code as text too: not every system has an emoji font for flags.
  setText("#iso", answer.country?.iso_code ?? "??");
  setText("#place", place || "Unknown place");
  setText("#ip", answer.ip);
  setText("#network", answer.network);
  setText("#country", answer.country?.name ? `${answer.country.name} (${answer.country.iso_code})` : null);
  setText("#region", answer.subdivisions?.map((subdivision) => subdivision.name).join(", ") || null);
  setText("#city", answer.city);
  const { latitude, longitude, accuracy_radius: radius, time_zone: timeZone } = answer.location ?? {};
  setText(
    "#coordinates",
    typeof latitude === "number" ? `${latitude.toFixed(4)}, ${longitude.toFixed(4)}${radius ? ` (± ${radius} km)` : ""}` : null,
  );
  setText("#timezone", timeZone);
  $("#result").removeAttribute("data-empty");
  placeMarker(latitude, longitude, place ? `${answer.ip}: ${place}` : answer.ip);
}

let pending = null;

async function lookup(target) {
  pending?.abort();
  const controller = new AbortController();
  pending = controller;
  showError("");
  $("#lookup-button").disabled = true;
  try {
    const response = await fetch(`/geo/${encodeURIComponent(target)}`, {
      signal: controller.signal,
      headers: { accept: "application/json" },
    });
    const body = await response.json();
    if (!response.ok) {
      clearResult();
      placeMarker(null, null, "No location to show.");
      showError(response.status === 404 ? `${target}: not in the database (private, reserved or unknown).` : body.error);
      return null;
    }
    render(body);
    return body;
  } catch (error) {
    if (error.name !== "AbortError") showError(`The lookup failed: ${error.message}`);
    return null;
  } finally {
    if (pending === controller) {
      pending = null;
      $("#lookup-button").disabled = false;
    }
  }
}

// ---- memory view ----

function parseMetrics(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[3] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    samples.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return samples;
}

function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function drawChart(bars) {
  const svg = $("#chart");
  const namespace = "http://www.w3.org/2000/svg";
  svg.querySelectorAll("g").forEach((group) => group.remove());
  const maximum = Math.max(...bars.map((bar) => bar.value), 1);
  bars.forEach((bar, index) => {
    const group = document.createElementNS(namespace, "g");
    const y = 20 + index * 48;
    const label = document.createElementNS(namespace, "text");
    label.setAttribute("x", "12");
    label.setAttribute("y", String(y + 12));
    label.textContent = bar.label;
    const rect = document.createElementNS(namespace, "rect");
    rect.setAttribute("x", "12");
    rect.setAttribute("y", String(y + 18));
    rect.setAttribute("height", "16");
    rect.setAttribute("rx", "3");
    rect.setAttribute("width", String(Math.max(2, (bar.value / maximum) * 480)));
    rect.setAttribute("fill", bar.color);
    const value = document.createElementNS(namespace, "text");
    value.setAttribute("class", "value");
    value.setAttribute("x", String(20 + Math.max(2, (bar.value / maximum) * 480)));
    value.setAttribute("y", String(y + 31));
    value.textContent = formatBytes(bar.value);
    group.append(label, rect, value);
    svg.append(group);
  });
}

async function loadStats() {
  try {
    const response = await fetch("/metrics");
    if (response.status === 404) {
      // The server keeps its figures private unless started with --public-metrics.
      setText("#db-mode", null);
      setText("#db-type", null);
      drawChart([]);
      setText("#stats-time", "This server keeps its figures private: start it with --public-metrics to see them here.");
      return;
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const samples = parseMetrics(await response.text());
    const find = (name, key, value) =>
      samples.find((sample) => sample.name === name && (!key || sample.labels[key] === value));
    const info = find("geodb_info");
    setText("#db-mode", info?.labels.mode);
    setText("#db-type", info ? `${info.labels.database_type}, ${formatBytes(find("geodb_size_bytes")?.value ?? 0)}` : null);
    drawChart([
      { label: "Heap in use (counted by the allocator)", value: find("geo_heap_in_use_bytes")?.value ?? 0, color: "#dc2626" },
      { label: "Heap retained by the GeoIP reader", value: find("geodb_reader_heap_bytes")?.value ?? 0, color: "#f97316" },
      { label: "Resident, private (anon)", value: find("process_resident_memory_bytes", "kind", "anon")?.value ?? 0, color: "#7c3aed" },
      { label: "Resident, file-backed (binary, maps)", value: find("process_resident_memory_bytes", "kind", "file")?.value ?? 0, color: "#0f766e" },
    ]);
    setText("#stats-time", `Measured ${new Date().toLocaleTimeString()}.`);
  } catch (error) {
    setText("#stats-time", `Could not read /metrics: ${error.message}`);
  }
}

// ---- routing ----

function route() {
  const path = decodeURIComponent(location.pathname);
  const isStats = path === "/stats";
  show($("#view-lookup"), !isStats);
  show($("#view-stats"), isStats);
  $("#nav-lookup").toggleAttribute("aria-current", !isStats);
  $("#nav-stats").toggleAttribute("aria-current", isStats);
  if (!isStats) $("#nav-lookup").setAttribute("aria-current", "page");
  else $("#nav-stats").setAttribute("aria-current", "page");
  document.title = isStats ? "Memory · bindery geo" : "bindery geo";
  if (isStats) {
    loadStats();
    return;
  }
  const match = /^\/lookup\/(.+)$/.exec(path);
  if (match) {
    $("#address").value = match[1];
    lookup(match[1]);
  }
}

function navigate(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  route();
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-route]");
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});

$("#lookup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const address = $("#address").value.trim();
  if (address) navigate(`/lookup/${address}`);
});

$("#me-button").addEventListener("click", async () => {
  const answer = await lookup("me");
  if (answer) {
    $("#address").value = answer.ip;
    history.pushState(null, "", `/lookup/${answer.ip}`);
  }
});

$("#refresh-stats").addEventListener("click", loadStats);
window.addEventListener("popstate", route);
route();
