import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a,b}from"./chunk-FJCKCQQY.js";import"./chunk-YQF3WO2N.js";import"./chunk-VPHIP76C.js";import"./chunk-GQORD3AX.js";import"./chunk-F4CR3HN2.js";import"./chunk-U66EBL6G.js";import"./chunk-3RS6X65U.js";import"./chunk-XSW5E6S2.js";import"./chunk-3WYY7CVH.js";import"./chunk-Y25O2SDR.js";export{a as projectTools,b as toolsFor};
