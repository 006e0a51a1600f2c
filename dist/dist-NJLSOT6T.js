import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{b as a}from"./chunk-3JOKUZLL.js";import"./chunk-AAOJYTAB.js";import"./chunk-5RHGCSKL.js";export default a();
