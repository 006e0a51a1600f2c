/**
 * Realistic files for the corpus, written for it: an Express-style server
 * (CRLF with an LF function pasted in, as happens when a Windows checkout
 * meets a Linux editor), middleware, a CI workflow, a README with typography,
 * and TypeScript declarations.
 */

const serverHead = `'use strict';

var express = require('express');
var path = require('path');
var store = require('./lib/store');
var logger = require('./lib/logger');

var app = express();
var port = process.env.PORT || 3000;

app.use(express.json());
app.use(express.static(path.join(__dirname, 'public')));

function getUser(req, res, next) {
  store.find(req.params.id, function (err, result) {
    if (err) return next(err);
    res.send(result);
  });
}

`;

/** Pasted from an LF editor into the CRLF file. */
const serverLfPart = `function listUsers(req, res, next) {
  store.all(function (err, result) {
    if (err) return next(err);
    res.send(result);
  });
}

`;

const serverTail = `function deleteUser(req, res, next) {
  store.remove(req.params.id, function (err, result) {
    if (err) return next(err);
    res.send(result);
  });
}

app.get('/health', function (req, res) {
  res.send({ ok: true });
});

app.get('/users', listUsers);
app.get('/users/:id', getUser);
app.delete('/users/:id', deleteUser);

app.listen(port, function () {
  logger.info('listening on ' + port);
});
`;

/**
 * Mostly CRLF; listUsers (lines 21-27) is LF. The two lines
 * "if (err) return next(err);\n    res.send(result);" occur 3 times: lines
 * 16-17 (CRLF), 23-24 (LF) and 30-31 (CRLF).
 */
export const mixedServer =
  serverHead.replace(/\n/g, "\r\n") + serverLfPart + serverTail.replace(/\n/g, "\r\n");

/** The same server, LF only. */
export const lfServer = serverHead + serverLfPart + serverTail;

export const corsMiddleware = `'use strict';

/**
 * Adds CORS headers for the allowed origins.
 */
module.exports = function cors(options) {
  var origins = options.origins || [];
  var maxAge = options.maxAge || 600;

  return function corsMiddleware(req, res, next) {
    var origin = req.headers.origin;
    if (origins.indexOf(origin) !== -1) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Max-Age', String(maxAge));
      res.statusCode = 204;
      return res.end();
    }
    next();
  };
};
`;

export const workflow = `name: ci

on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        node: [18, 20]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: \${{ matrix.node }}
      - run: npm ci
      - run: npm test

  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - run: npm run lint
`;

/** Typography as word processors write it: curly quotes, an NBSP, an em dash. */
export const readme = `# Router Kit

A tiny router that doesn\u2019t need a framework.

## Install

\`\`\`sh
npm install router-kit
\`\`\`

## Usage

Call \u201Croute()\u201D with a path and a handler\u00a0function.
Routes are matched in order \u2014 the first match wins.

- Supports params: \`/users/:id\`
- Supports wildcards: \`/files/*\`

## License

MIT
`;

export const declarations = `/**
 * Options accepted by createServer.
 */
export interface ServerOptions {
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  host?: string;
  /** Milliseconds before an idle socket is closed. */
  keepAliveTimeout?: number;
}

export declare function createServer(options?: ServerOptions): Server;

export declare class Server {
  readonly port: number;
  listen(callback?: () => void): this;
  close(): Promise<void>;
}

export type Handler<T = unknown> = (request: Request, context: T) => Response | Promise<Response>;
`;

export const packageJson = `{
  "name": "router-kit",
  "version": "1.4.2",
  "main": "lib/index.js",
  "scripts": {
    "test": "node --test",
    "lint": "eslint ."
  },
  "dependencies": {
    "path-to-regexp": "^6.2.1"
  }
}
`;

/** A minified bundle line of about 6000 characters, then ordinary lines. */
export const minified = `${Array.from(
  { length: 150 },
  (_, i) => `var a${i}=function(t){return t+${i}};`,
).join("")}\nmodule.exports = a0;\n// end\n`;

/** About 60 characters a line, 3000 lines: more than the 50 000-character output cap. */
export const longLog = `${Array.from(
  { length: 3000 },
  (_, i) => `line ${String(i + 1).padStart(4, "0")}: request handled in ${i % 97} ms ok`,
).join("\n")}\n`;

export const latin1Text = Buffer.from("caf\xe9 cr\xe8me\nna\xefve\n", "latin1");
export const pngHeader = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);
export const utf16Text = Buffer.concat([
  Buffer.from([0xff, 0xfe]),
  Buffer.from("name=value\r\n", "utf16le"),
]);
