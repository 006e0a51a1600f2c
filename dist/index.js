import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
await import("./main-GEJX7GAR.js").then(({main:t})=>t());
