const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
var e=process.getBuiltinModule("node:url");var{URL:o,URLPattern:t,URLSearchParams:r,Url:a,domainToASCII:l,domainToUnicode:i,fileURLToPath:n,fileURLToPathBuffer:s,format:U,parse:p,pathToFileURL:u,resolve:c,resolveObject:d,urlToHttpOptions:f}=e;export{n as a};
