const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
function s(i,r){let o=Array.from({length:r.length+1},(n,e)=>e);for(let n=1;n<=i.length;n++){let e=[n];for(let t=1;t<=r.length;t++){let l=i[n-1]===r[t-1]?0:1;e.push(Math.min((o[t]??0)+1,(e[t-1]??0)+1,(o[t-1]??0)+l))}o=e}return o[r.length]??0}export{s as a};
