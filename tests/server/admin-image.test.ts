/**
 * `npm run admin` where production runs: the Docker image's runtime stage, which holds the bundle and
 * production dependencies only (no TypeScript sources, no tsx). An operator runs it in a container
 * (`docker compose exec app1 npm run admin -- grant-moderator <email>`): the compose shape's PostgreSQL
 * is on the compose network, which nothing outside it reaches.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../server/db/schema';
import { makeUser } from '../helpers/factories';
import { serverPerSuite } from '../helpers/server';
import { hasPostgres } from '../helpers/services';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * A folder laid out as the Dockerfile's runtime stage lays out /app: each of its own COPY lines taken
 * from the repository, `dist/` built as the build stage builds it (`npm run build:server`, into this
 * folder), and the repository's node_modules in place of its `npm ci --omit=dev`.
 */
async function runtimeStage(image: string) {
  const dockerfile = await readFile(path.join(root, 'Dockerfile'), 'utf8');
  const stage = dockerfile.slice(dockerfile.search(/^FROM .* AS runtime$/m));
  for (const [, args] of stage.matchAll(/^COPY (?!--from)(.+)$/gm)) {
    const parts = args!.trim().split(/\s+/);
    const target = path.join(image, parts.pop()!);
    for (const source of parts) {
      const into = parts.length > 1 || target.endsWith(path.sep) ? path.join(target, path.basename(source)) : target;
      await mkdir(path.dirname(into), { recursive: true });
      await cp(path.join(root, source), into, { recursive: true });
    }
  }
  expect(stage, 'the runtime stage takes dist/ from the build stage').toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
  await run(process.execPath, ['scripts/build-server.mjs', path.join(image, 'dist')], { cwd: root });
  await symlink(path.join(root, 'node_modules'), path.join(image, 'node_modules'));
}

// The compose shape: the image's instances on PostgreSQL, the command run beside them. Two bundles
// built on a busy machine take a while.
describe.skipIf(!(await hasPostgres()))('the admin command in the production image', { timeout: 120_000 }, () => {
  let image: string;
  beforeAll(async () => {
    image = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-image-'));
  });
  afterAll(() => rm(image, { recursive: true, force: true }));
  const server = serverPerSuite({ backend: 'postgres' });

  it('makes a moderator from what the image holds, with no sources and no dev tools', async () => {
    await runtimeStage(image);
    const { email } = await makeUser(server);
    const env = { ...process.env, DATABASE_URL: server.config.databaseUrl!, DATA_DIR: image };
    const granted = await run('npm', ['run', '--silent', 'admin', '--', 'grant-moderator', email], { cwd: image, env }).catch(
      (error: { stdout?: string; stderr?: string }) => error,
    );
    expect(granted.stdout, granted.stderr).toBe(`${email} is now a moderator.\n`);
    const [row] = await server.app.db.select({ role: users.role }).from(users).where(eq(users.email, email));
    expect(row?.role).toBe('moderator');
  });
});
