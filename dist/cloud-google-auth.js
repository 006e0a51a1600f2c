import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a}from"./cloud-chunk-KOKPAGAB.js";import"./cloud-chunk-JC6BZEIU.js";export default a();
