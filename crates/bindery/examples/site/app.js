// Embedded with the page: fetched from the binary, never from disk.
document.querySelector("h1").textContent += " (script loaded)";
