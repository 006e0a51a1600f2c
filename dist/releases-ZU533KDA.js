import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a,b}from"./chunk-RKRVJTR2.js";import"./chunk-TXZM5M27.js";import"./chunk-Y27EIRSR.js";import"./chunk-Y25O2SDR.js";export{a as githubReleases,b as releasesFromEnv};
