import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a}from"./chunk-GQORD3AX.js";import"./chunk-Y25O2SDR.js";export default a();
