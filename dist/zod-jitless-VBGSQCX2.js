import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import"./chunk-3RS6X65U.js";import"./chunk-XSW5E6S2.js";import{m as i}from"./chunk-3WYY7CVH.js";import"./chunk-Y25O2SDR.js";i({jitless:!0});
