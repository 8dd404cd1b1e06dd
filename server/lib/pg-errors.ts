/** The PostgreSQL error of a failed statement, from postgres.js or PGlite (drizzle may wrap it in `cause`). */
function pgError(error: unknown): { code?: string; constraint?: string; constraint_name?: string } | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current === 'object' && 'code' in current && typeof current.code === 'string') {
      return current as { code?: string; constraint?: string; constraint_name?: string };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** The statement broke a constraint of this kind (`code`), and the one named when one is. */
function violates(code: string, error: unknown, constraint: string | undefined): boolean {
  const pg = pgError(error);
  if (pg?.code !== code) return false;
  return !constraint || (pg.constraint_name ?? pg.constraint) === constraint;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  return violates('23505', error, constraint);
}

/** A row naming another that is not there (any more): a user deleted while a request about them was on its way. */
export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  return violates('23503', error, constraint);
}

/** Text PostgreSQL cannot hold (a NUL, an unencodable character): the client's input, not our bug. */
export function isUnstorableText(error: unknown): boolean {
  const code = pgError(error)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * postgres.js's codes for a connection that ended under its statement, and PostgreSQL's for a backend
 * ended (pg_terminate_backend, a shutdown or crash) or one it will not start now (starting up, shutting down).
 */
const CONNECTION_LOST = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', '57P01', '57P02', '57P03']);

/**
 * The statement's connection to PostgreSQL ended under it, or none could be opened (a backend ended,
 * PostgreSQL restarting or a failover): whether a write of it was stored is unknown, and the next
 * statement goes on a new connection.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = pgError(error)?.code;
  return code !== undefined && (CONNECTION_LOST.has(code) || code.startsWith('08'));
}

/**
 * A transaction PostgreSQL rolled back to break a cycle of waits (deadlock_detected), or one that
 * could not be serialized: nothing of it was stored, and the same request again will go through.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = pgError(error)?.code;
  return code === '40P01' || code === '40001';
}
