import { greet } from "./shared-DkTw81xQ.js";
document.querySelector("#app").textContent = greet("fixture");
import("./lazy-Ef4nR2sM.js").then((lazy) => lazy.run());
