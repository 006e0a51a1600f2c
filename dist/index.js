import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
await import("./main-I7X72IXL.js").then(({main:t})=>t());
