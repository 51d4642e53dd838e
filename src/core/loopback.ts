/**
 * What counts as "this machine only": the loopback interface, named by a
 * listening address (HOST) or seen as a peer's address. The chat dev mode
 * (CHATOPS_DEV) is allowed only when both say loopback: config.ts checks
 * HOST, the chat face checks every request's address.
 */
import net from "node:net";

/** 127.0.0.0/8, ::1, and IPv4 loopback written as an IPv6-mapped address (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const bare = address.trim().replace(/^\[(.*)\]$/, "$1");
  const ipv4 = bare.toLowerCase().startsWith("::ffff:") ? bare.slice(7) : bare;
  if (net.isIPv4(ipv4)) return ipv4.split(".")[0] === "127";
  if (!net.isIPv6(bare)) return false;
  // Every spelling of ::1 (0:0:0:0:0:0:0:1 too) is the same address once normalised.
  return new net.SocketAddress({ address: bare, family: "ipv6" }).address === "::1";
}

/** A listening address reachable only from this machine: localhost, or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  return host.trim().toLowerCase() === "localhost" || isLoopbackAddress(host);
}
