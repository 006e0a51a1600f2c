import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { bareHost } from "../../src/sandbox/address-kind.js";
import { tunnelThroughProxy } from "../../src/sandbox/trust/upstream-proxy.js";

/**
 * The CONNECT tunnel through the host's proxy, against a minimal proxy on
 * loopback that answers 200 and then echoes what comes through.
 */

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.close();
    await once(server, "close");
  }
});

async function echoProxy(host: string): Promise<{ port: number; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((client: Socket) => {
    client.once("data", (head) => {
      asked.push(head.toString("latin1").split("\r\n")[0] ?? "");
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      client.pipe(client);
    });
  });
  servers.push(server);
  server.listen(0, host);
  await once(server, "listening");
  return { port: (server.address() as { port: number }).port, asked };
}

describe("tunnelThroughProxy", () => {
  it("reaches a proxy given by an IPv6 address, brackets and all, as a URL writes it", async () => {
    const proxy = await echoProxy("::1");
    const socket = await tunnelThroughProxy(
      new URL(`http://[::1]:${proxy.port}`),
      "registry.corp.test",
      443,
    );
    socket.write("ping");
    const [echoed] = await once(socket, "data");
    socket.destroy();
    expect(String(echoed)).toBe("ping");
    expect(proxy.asked).toEqual(["CONNECT registry.corp.test:443 HTTP/1.1"]);
  });
});

describe("bareHost", () => {
  it("takes an IPv6 address out of its brackets and leaves names and IPv4 as they are", () => {
    expect(bareHost(new URL("http://[fd00::1]:3128").hostname)).toBe("fd00::1");
    expect(bareHost(new URL("https://user:pw@proxy.corp.test:8443").hostname)).toBe(
      "proxy.corp.test",
    );
    expect(bareHost(new URL("http://10.0.0.7:3128").hostname)).toBe("10.0.0.7");
  });
});
