import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
await import("./main-G5R6L7QA.js").then(({main:t})=>t());
