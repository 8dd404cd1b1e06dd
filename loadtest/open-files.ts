/**
 * The process's open-file limit against what a party needs. Every attendee's socket is a file
 * descriptor, and so is every REST connection: past the limit, sockets fail deep inside with EMFILE,
 * a few thousand attendees in. Told up front instead, with what to run.
 *
 * Node has no getrlimit; Linux tells the limits in /proc/self/limits (elsewhere the check is skipped).
 * Node raises its soft limit to the hard one as it starts, so the soft limit read here is already as
 * high as this process can take it: beyond that only the shell that starts it (or root) can go.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Files the process may hold beyond those counted: the state file, DNS, a socket replaced during a reconnect. */
const SLACK = 64;

/** `Max open files` of /proc/self/limits, or null where there is none (not Linux). */
export function openFileLimit(limits = '/proc/self/limits'): { soft: number; hard: number } | null {
  let text: string;
  try {
    text = readFileSync(limits, 'utf8');
  } catch {
    return null;
  }
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!match) return null;
  const value = (field: string) => (field === 'unlimited' ? Infinity : Number(field));
  return { soft: value(match[1]!), hard: value(match[2]!) };
}

/** Files open now (the runtime's own, stdio…), or 0 where that cannot be told. */
function openNow() {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

/**
 * Why `attendees` sockets and `restConnections` cannot be open at once under this process's limit, with
 * what to run; null when they can (or the limit cannot be read).
 */
export function openFilesProblem(attendees: number, restConnections: number): string | null {
  const limit = openFileLimit();
  if (!limit) return null;
  const needed = openNow() + attendees + restConnections + SLACK;
  if (needed <= limit.soft) return null;
  const how =
    needed <= limit.hard
      ? `run \`ulimit -n ${needed}\` in this shell first`
      : `its hard limit is ${limit.hard}, so raise that first: \`ulimit -n ${needed}\` as root in the shell that runs this, ` +
        `\`nofile\` in /etc/security/limits.conf (then log in again), \`LimitNOFILE=${needed}\` for a systemd service, ` +
        `or \`docker run --ulimit nofile=${needed}\``;
  return (
    `${attendees} attendees need about ${needed} open files (a socket each, up to ${restConnections} REST connections, the runtime's own), ` +
    `but this process may open ${limit.soft} (ulimit -n): ${how}`
  );
}
