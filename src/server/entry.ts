// Production entry (bundled by scripts/build-server.mjs).
import { main } from "./main.js";

await main();
