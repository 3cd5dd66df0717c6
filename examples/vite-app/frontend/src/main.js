import "./main.css";
import logo from "./logo.svg";

const status = document.querySelector("#status");
const image = document.createElement("img");
image.id = "logo";
image.alt = "logo";
image.src = logo;
document.body.append(image);

// A dynamic import: its own chunk, loaded when the page runs.
import("./lazy.js").then(({ message }) => {
  status.textContent = message;
  status.dataset.loaded = "yes";
});
