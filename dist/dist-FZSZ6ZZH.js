import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{b as a}from"./chunk-AOKBS5HV.js";import"./chunk-UYKLFHA3.js";import"./chunk-5RHGCSKL.js";export default a();
