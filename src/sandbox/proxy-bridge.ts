/**
 * The program that runs first inside a sandbox whose network is limited to
 * hosts: a TCP listener on the sandbox's own loopback that forwards each
 * connection to the allow-list proxy's Unix socket (bound in from the host),
 * then the command itself, whose exit it passes on. Run with `node -e`, so
 * it is plain JavaScript in a string: nothing to ship beside the bundle.
 * argv: port, socket path, then the command.
 */
export const PROXY_BRIDGE_SOURCE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const { constants } = require("node:os");
const [port, socket, file, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(file, args, { stdio: "inherit" });
  child.on("error", (error) => { console.error(error.message); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
});
`;

/** The bridge's port inside the sandbox: its own network namespace, so any fixed port is free. */
export const PROXY_BRIDGE_PORT = 3128;
