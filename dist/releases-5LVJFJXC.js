import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a,b}from"./chunk-BZVQUWJG.js";import"./chunk-HEWRI54D.js";import"./chunk-V64XCD5U.js";import"./chunk-Y25O2SDR.js";export{a as githubReleases,b as releasesFromEnv};
