const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{a,b}from"./chunk-6PTVFP2L.js";import"./chunk-JMPNU5ZM.js";import"./chunk-XCRAN334.js";import"./chunk-2YJIEU6J.js";export{a as githubReleases,b as releasesFromEnv};
