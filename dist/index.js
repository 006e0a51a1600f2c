import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
await import("./main-GF35F5M4.js").then(({main:t})=>t());
