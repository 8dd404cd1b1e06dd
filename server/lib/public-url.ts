import os from 'node:os';
import type { FastifyRequest } from 'fastify';

/** The names this machine answers to: localhost, its host name, and each network interface's address. */
function ownHostnames(): Set<string> {
  const host = os.hostname().toLowerCase();
  const names = new Set(['localhost', host, `${host}.local`]);
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const { address, family } of addresses ?? []) names.add(family === 'IPv6' ? `[${address.toLowerCase()}]` : address);
  }
  return names;
}

/**
 * Where the links made for a request point when `PUBLIC_URL` is unset: the address the request came
 * to, when it names this machine. The organizer who opens the host screen at the laptop's network
 * address (http://192.168.1.20:3000) gets a QR code the phones on the same Wi-Fi can open, where
 * `fallback` (localhost) would reach only the laptop. A Host header naming any other site is not
 * followed, nor a scheme other than http or https, so no request can point a password-reset e-mail
 * at someone else's server.
 */
export function requestOrigin(request: FastifyRequest, fallback: string): string {
  // A name and at most a port: nothing after them (`localhost:3000@elsewhere.example` names elsewhere).
  const named = /^(\[[0-9a-f:.]+\]|[0-9a-z.-]+?)\.?(:\d{1,5})?$/.exec(request.host.toLowerCase());
  // The scheme is X-Forwarded-Proto's when a proxy is trusted, which may pass on a client's own header:
  // `https://evil.example/#` would start the link.
  if (!named || !ownHostnames().has(named[1]!) || !['http', 'https'].includes(request.protocol)) return fallback;
  return `${request.protocol}://${named[1]}${named[2] ?? ''}`;
}
