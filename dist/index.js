import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
await import("./main-WUHU23Y3.js").then(({main:t})=>t());
