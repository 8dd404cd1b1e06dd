/** The environment as server/config.ts reads it: defaults for what is unset, a ConfigError for what it cannot use. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { openDatabase } from '../../server/db/client';
import { freePort } from '../helpers/ports';

describe('the configuration', () => {
  it('takes defaults for settings unset or empty', () => {
    const config = loadConfig({ PORT: '', PUBLIC_URL: '', RATE_LIMIT_MULTIPLIER: ' ' });
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBeNull();
    expect(config.limitMultiplier).toBe(1);
    expect(config.mail.from).toBe('Eventmatch <no-reply@localhost>');
    // The event pushes' coalescing, which the realtime tests shorten: a count a second, a refresh every 5 s.
    expect(config).toMatchObject({ eventCountIntervalMs: 1000, deckRefreshIntervalMs: 5000 });
  });

  it('reads whole numbers, and refuses anything else by the setting’s name', () => {
    expect(loadConfig({ PORT: '8080', LOGIN_THROTTLE_PER_IP: ' 500 ' })).toMatchObject({ port: 8080, loginThrottle: { perIp: 500 } });
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(new ConfigError('PORT must be a whole number, not "abc".'));
    expect(() => loadConfig({ PORT: '99999' })).toThrow(new ConfigError('PORT must be at most 65535, not 99999.'));
    expect(() => loadConfig({ RATE_LIMIT_MULTIPLIER: 'lots' })).toThrow(new ConfigError('RATE_LIMIT_MULTIPLIER must be a whole number, not "lots".'));
    expect(() => loadConfig({ ARGON2_MEMORY_KIB: '19.5' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOGIN_THROTTLE_WINDOW_MS: '-1' })).toThrow(ConfigError);
  });

  it('sizes the PostgreSQL pool from DATABASE_POOL_SIZE, at least one connection', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(new ConfigError('DATABASE_POOL_SIZE must be at least 1.'));
    expect(() => loadConfig({ DATABASE_POOL_SIZE: 'many' })).toThrow(new ConfigError('DATABASE_POOL_SIZE must be a whole number, not "many".'));
  });

  it('takes DATABASE_URL as a PostgreSQL address, and refuses anything else without repeating it', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://app:secret@db:5432/eventmatch?sslmode=require' }).databaseUrl).toBe(
      'postgres://app:secret@db:5432/eventmatch?sslmode=require',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/eventmatch' }).databaseUrl).toBe('postgresql://db/eventmatch');
    const refused = new ConfigError('DATABASE_URL must be a PostgreSQL address such as postgres://user:password@host:5432/eventmatch.');
    for (const bad of ['db:5432/eventmatch', 'postgres://app:se#cret@db/eventmatch', 'mysql://db/eventmatch']) {
      expect(() => loadConfig({ DATABASE_URL: bad })).toThrow(refused);
    }
  });

  it('takes SMTP_URL as an smtp:// or smtps:// address, and refuses anything else without repeating it', () => {
    expect(loadConfig({}).mail.smtpUrl).toBeNull();
    for (const good of ['smtp://app:s3cret@mail.example.com:587', 'smtps://mail.example.com', 'smtp://127.0.0.1:2525?pool=true']) {
      expect(loadConfig({ SMTP_URL: good }).mail.smtpUrl).toBe(good);
    }
    // Each of these was taken, and every e-mail then went to a host nobody meant (0.0.2.75, localhost)
    // and failed, one user at a time, with nothing said at start-up.
    const refused = new ConfigError('SMTP_URL must be a mail server’s address such as smtp://user:password@host:587 (or smtps://).');
    for (const bad of ['mail.example.com:587', 'mail.example.com', 'http://mail.example.com', 'smtp://', 'smtp://:587', 'smtp://mail.example.com:99999']) {
      expect(() => loadConfig({ SMTP_URL: bad }), bad).toThrow(refused);
    }
  });

  it('refuses a DATABASE_URL it cannot connect to, by name', async () => {
    const port = await freePort();
    await expect(openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/eventmatch`, dataDir: '/nonexistent' })).rejects.toEqual(
      new ConfigError(`DATABASE_URL: the database cannot be reached (connect ECONNREFUSED 127.0.0.1:${port}).`),
    );
  });

  it('takes LOG_LEVEL as one of pino’s levels', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(
      new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud".'),
    );
  });

  it('takes TRUST_PROXY as proxy-addr reads it, and refuses anything else by the setting’s name', () => {
    expect(loadConfig({}).trustProxy).toBe('loopback');
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'uniquelocal, 10.0.0.5,192.168.0.0/16, fd00::/8, 172.16.0.0/255.240.0.0' }).trustProxy).toBe(
      'uniquelocal, 10.0.0.5,192.168.0.0/16, fd00::/8, 172.16.0.0/255.240.0.0',
    );
    for (const bad of ['garbage', '10.0.0.0/33', '10.0.0.5/8/8', 'loopback,proxy.example']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ TRUST_PROXY: 'garbage' })).toThrow(
      new ConfigError('TRUST_PROXY must be true, false, or loopback, linklocal, uniquelocal, addresses and CIDRs separated by commas, not "garbage".'),
    );
  });

  it('takes PUBLIC_URL as an absolute http(s) address, and names the mail sender after it', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://party.example.com//' });
    expect(config.publicUrl).toBe('https://party.example.com');
    expect(config.mail.from).toBe('Eventmatch <no-reply@party.example.com>');
    expect(() => loadConfig({ PUBLIC_URL: 'party.example.com' })).toThrow(
      new ConfigError('PUBLIC_URL must be an absolute address such as https://party.example.com, not "party.example.com".'),
    );
    // Checked even when MAIL_FROM names the sender: links in e-mails are built from it.
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://party.example.com', MAIL_FROM: 'x@example.com' })).toThrow(
      new ConfigError('PUBLIC_URL must start with http:// or https://, not "ftp://party.example.com".'),
    );
  });

  it('takes EMBED_ORIGINS as origins, by commas or spaces, and refuses anything with a path', () => {
    expect(loadConfig({}).embedOrigins).toEqual([]);
    expect(loadConfig({ EMBED_ORIGINS: 'https://venue.example, http://localhost:5173/  https://club.example' }).embedOrigins).toEqual([
      'https://venue.example',
      'http://localhost:5173',
      'https://club.example',
    ]);
    for (const bad of ['venue.example', 'https://venue.example/events', 'ftp://venue.example', '*']) {
      expect(() => loadConfig({ EMBED_ORIGINS: bad })).toThrow(
        new ConfigError(`EMBED_ORIGINS must list origins such as https://venue.example (no path), not "${bad}".`),
      );
    }
  });

  it('keeps photos on disk unless S3_BUCKET names a bucket, and checks the bucket’s settings together', () => {
    expect(loadConfig({}).s3).toBeNull();
    expect(loadConfig({ S3_BUCKET: 'photos' }).s3).toEqual({
      bucket: 'photos',
      endpoint: null,
      region: 'us-east-1',
      forcePathStyle: false,
      credentials: null,
    });
    // Another service than AWS: its address, and paths rather than bucket host names unless told.
    expect(
      loadConfig({ S3_BUCKET: 'photos', S3_ENDPOINT: 'http://minio:9000/', S3_REGION: 'auto', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' }).s3,
    ).toEqual({
      bucket: 'photos',
      endpoint: 'http://minio:9000',
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(loadConfig({ S3_BUCKET: 'photos', S3_ENDPOINT: 'https://r2.example.com', S3_FORCE_PATH_STYLE: 'false' }).s3?.forcePathStyle).toBe(false);
    expect(() => loadConfig({ S3_ENDPOINT: 'http://minio:9000' })).toThrow(new ConfigError('S3_ENDPOINT and S3_ACCESS_KEY_ID need S3_BUCKET.'));
    expect(() => loadConfig({ S3_BUCKET: 'photos', S3_ACCESS_KEY_ID: 'id' })).toThrow(
      new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together.'),
    );
    expect(() => loadConfig({ S3_BUCKET: 'photos', S3_ENDPOINT: '/minio' })).toThrow(
      new ConfigError('S3_ENDPOINT must be an absolute address such as http://minio:9000, not "/minio".'),
    );
    expect(() => loadConfig({ S3_BUCKET: 'photos', S3_ENDPOINT: 'minio:9000' })).toThrow(
      new ConfigError('S3_ENDPOINT must start with http:// or https://, not "minio:9000".'),
    );
    expect(() => loadConfig({ S3_BUCKET: 'photos', S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(
      new ConfigError('S3_FORCE_PATH_STYLE must be true or false, not "maybe".'),
    );
  });

  it('deletes in PostHog through its private API when given a personal key and the project (both or neither)', () => {
    expect(loadConfig({ POSTHOG_KEY: 'phc_x' }).posthog.erasure).toBeNull();
    const key = { POSTHOG_PERSONAL_API_KEY: 'phx_y', POSTHOG_PROJECT_ID: '42' };
    // PostHog Cloud takes events at one address and answers its API at another.
    expect(loadConfig({ POSTHOG_KEY: 'phc_x', ...key }).posthog.erasure).toEqual({ personalApiKey: 'phx_y', projectId: '42', apiHost: 'https://us.posthog.com' });
    expect(loadConfig({ POSTHOG_HOST: 'https://eu.i.posthog.com/', ...key }).posthog.erasure?.apiHost).toBe('https://eu.posthog.com');
    expect(loadConfig({ POSTHOG_HOST: 'https://ph.example.com', ...key }).posthog.erasure?.apiHost).toBe('https://ph.example.com');
    expect(loadConfig({ POSTHOG_API_HOST: 'https://api.ph.example.com/', ...key }).posthog.erasure?.apiHost).toBe('https://api.ph.example.com');
    expect(() => loadConfig({ POSTHOG_PERSONAL_API_KEY: 'phx_y' })).toThrow(new ConfigError('POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID go together.'));
  });
});
