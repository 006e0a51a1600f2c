import { isIP, connect as netConnect, type Socket } from "node:net";
import { rootCertificates, connect as tlsConnect } from "node:tls";
import { bareHost } from "../address-kind.js";
import { proxyAuthorization } from "./proxy-settings.js";

/**
 * A tunnel through the host's own proxy: CONNECT host:port, with the
 * proxy's credentials when its URL has them (they stay on the host side).
 * An https:// proxy is reached over TLS with what the host trusts: node's
 * own list (NODE_EXTRA_CA_CERTS included) and the CA files its settings name.
 */

export class UpstreamProxyError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "UpstreamProxyError";
  }
}

const MAX_HEAD_BYTES = 16 * 1024;

/**
 * The CAs a TLS connection to or through the host's proxy trusts: node's
 * own and the ones the host's settings name (an inspecting proxy signs with
 * one of those), or undefined (node's default) when there are none.
 */
export function caWithRoots(extraCa: readonly string[] | undefined): string[] | undefined {
  return extraCa && extraCa.length > 0 ? [...rootCertificates, ...extraCa] : undefined;
}

export function tunnelThroughProxy(
  proxy: URL,
  host: string,
  port: number,
  /** Extra CAs the host trusts (npm's cafile…), beside node's own. */
  extraCa: readonly string[] = [],
  /** Gives up (the socket closed) when it aborts before the proxy answers. */
  signal?: AbortSignal,
): Promise<Socket> {
  const ca = caWithRoots(extraCa);
  const proxyPort = Number(proxy.port || (proxy.protocol === "https:" ? 443 : 80));
  const proxyHost = bareHost(proxy.hostname);
  const socket =
    proxy.protocol === "https:"
      ? tlsConnect({
          host: proxyHost,
          port: proxyPort,
          // TLS names a server only by name (RFC 6066): a proxy given by address gets none,
          // and its certificate is still checked against that address.
          ...(isIP(proxyHost) ? {} : { servername: proxyHost }),
          ca,
        })
      : netConnect(proxyPort, proxyHost);
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const auth = proxyAuthorization(proxy);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = (error: unknown) => {
      signal?.removeEventListener("abort", aborted);
      socket.destroy();
      reject(error);
    };
    const aborted = () => fail(signal?.reason);
    if (signal?.aborted) {
      aborted();
      return;
    }
    signal?.addEventListener("abort", aborted, { once: true });
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES)
          fail(new UpstreamProxyError("the proxy's answer has no end"));
        return;
      }
      socket.off("data", onData);
      socket.off("error", fail);
      signal?.removeEventListener("abort", aborted);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.toString("latin1"))?.[1] ?? 0);
      if (status !== 200) {
        fail(
          new UpstreamProxyError(
            `the host's proxy ${proxy.host} answered ${status || "something else than HTTP"} to CONNECT ${authority}`,
            status || undefined,
          ),
        );
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on("data", onData);
    socket.once("error", fail);
    socket.write(
      `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`,
    );
  });
}
