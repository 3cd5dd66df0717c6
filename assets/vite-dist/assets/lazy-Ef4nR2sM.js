import { greet } from "./shared-DkTw81xQ.js";
export const run = () => console.log(greet("lazy"));
