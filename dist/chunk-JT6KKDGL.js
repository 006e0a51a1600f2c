const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
var e=process.getBuiltinModule("node:string_decoder");var{StringDecoder:t}=e;export{t as a};
