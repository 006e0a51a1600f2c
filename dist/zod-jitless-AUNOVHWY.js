const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{h as i}from"./chunk-MUJ6NHSD.js";import"./chunk-2YJIEU6J.js";i({jitless:!0});
