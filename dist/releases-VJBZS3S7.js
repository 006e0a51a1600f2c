import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a,b}from"./chunk-FW4UFTV3.js";import"./chunk-AYVK2YBX.js";import"./chunk-FJ5EP6QX.js";import"./chunk-5RHGCSKL.js";export{a as githubReleases,b as releasesFromEnv};
