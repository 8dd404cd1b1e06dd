import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http';
import { serverPerSuite } from '../helpers/server';

interface Operation {
  summary?: string;
  description?: string;
  parameters?: Array<{ in: string; name: string; schema?: unknown }>;
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }>; description?: string }>;
  'x-body'?: string;
  security?: Array<Record<string, string[]>>;
}

/**
 * Every route the app has, from Fastify's own route tree (`printRoutes`), so that a route another
 * feature adds later is checked without anyone listing it here. HEAD routes are Fastify's copies of
 * the GETs; `*` and the documentation's own routes are not part of the API.
 */
function registeredRoutes(tree: string): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) {
      if (method !== 'HEAD' && path !== '*' && !path.startsWith('/api/docs')) routes.push({ method, path });
    }
  }
  return routes;
}

/** `/api/users/:id/profile` as OpenAPI writes it, with its trailing slash: `/api/users/{id}/profile/`. */
const openapiPath = (path: string, paths: Record<string, unknown>) => {
  const templated = path.replace(/:(\w+)/g, '{$1}');
  return [templated, `${templated}/`].find((candidate) => candidate in paths);
};

describe('the OpenAPI document generated from the routes', () => {
  const server = serverPerSuite();
  let spec: { openapi: string; paths: Record<string, Record<string, Operation>>; components?: unknown; security?: Array<Record<string, string[]>> };

  beforeAll(async () => {
    const response = await client(server.url).get('/api/docs/json');
    expect(response.status).toBe(200);
    spec = response.body;
  });

  it('is OpenAPI 3.1, and the browsable page is served beside it', async () => {
    expect(spec.openapi).toBe('3.1.0');
    const page = await client(server.url).get('/api/docs/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('lists every route the app has', () => {
    const routes = registeredRoutes(server.app.printRoutes({ commonPrefix: false }));
    // The enumeration itself works: routes of every feature are in it.
    expect(routes.length).toBeGreaterThan(20);
    expect(routes).toContainEqual({ method: 'POST', path: '/api/conversations/:id/messages' });
    const missing = routes.filter(({ method, path }) => {
      const key = openapiPath(path, spec.paths);
      return !key || !spec.paths[key]![method.toLowerCase()];
    });
    expect(missing).toEqual([]);
  });

  it('gives every route its request and response schemas', () => {
    const problems: string[] = [];
    for (const { method, path } of registeredRoutes(server.app.printRoutes({ commonPrefix: false }))) {
      const key = openapiPath(path, spec.paths);
      const operation = key ? spec.paths[key]![method.toLowerCase()] : undefined;
      if (!operation) continue;
      const name = `${method} ${path}`;
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => /^[23]\d\d$/.test(status));
      if (success.length === 0) problems.push(`${name}: no success response`);
      for (const [status, response] of success) {
        // No body by definition: 204, and a redirect (its Location says where).
        if (status === '204' || status.startsWith('3')) continue;
        const schemas = Object.values(response.content ?? {}).map((content) => content.schema);
        if (schemas.length === 0 || schemas.some((schema) => schema === undefined)) problems.push(`${name}: ${status} has no schema`);
      }
      for (const [, param] of path.matchAll(/:(\w+)/g)) {
        const documented = operation.parameters?.find((p) => p.in === 'path' && p.name === param);
        if (!documented?.schema) problems.push(`${name}: path parameter ${param} has no schema`);
      }
      if (['POST', 'PUT', 'PATCH'].includes(method)) {
        const content = Object.values(operation.requestBody?.content ?? {});
        const bodyless = operation['x-body'] === 'none';
        if (!bodyless && (content.length === 0 || content.some((c) => c.schema === undefined))) problems.push(`${name}: no request body schema`);
      }
      // The error envelope, on every route.
      if (!operation.responses?.['4XX'] || !operation.responses['400']) problems.push(`${name}: the error envelope is not described`);
    }
    expect(problems).toEqual([]);
  });

  it('says which routes take the token: those that answer 401 without one, and only those', async () => {
    const operations = registeredRoutes(server.app.printRoutes({ commonPrefix: false }));
    const wrong: string[] = [];
    for (const { method, path } of operations) {
      const key = openapiPath(path, spec.paths);
      const operation = key ? spec.paths[key]![method.toLowerCase()] : undefined;
      if (!key || !operation) continue;
      // The token is checked before anything else of the request (its onRequest hook): any ids will do.
      const url = key.replace(/\{\w+\}/g, '1');
      const response = await client(server.url).request(method, url, method === 'GET' || method === 'DELETE' ? {} : { json: {} });
      // Required: every way the route may be called names the token (an empty requirement: none needed).
      const security = operation.security ?? spec.security ?? [];
      const documented = security.length > 0 && security.every((requirement) => 'token' in requirement);
      if (documented !== (response.status === 401)) wrong.push(`${method} ${key}: answers ${response.status}, documented ${documented ? 'with' : 'without'} the token`);
    }
    expect(operations.length).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  });

  it('describes a route as its zod schemas say', () => {
    const register = spec.paths['/api/auth/register/']!.post!;
    const body = register.requestBody!.content['application/json']!.schema as { required: string[]; properties: Record<string, unknown> };
    expect(body.required).toEqual(expect.arrayContaining(['first_name', 'last_name', 'username', 'password', 'password2']));
    const created = register.responses!['201']!.content!['application/json']!.schema as { properties: Record<string, unknown> };
    expect(Object.keys(created.properties).sort()).toEqual(['email', 'first_name', 'id', 'last_name']);
    const upload = spec.paths['/api/uploads/']!.post!;
    expect(Object.keys(upload.requestBody!.content)).toEqual(['multipart/form-data']);
    // The checkout takes a form post too (the pricing page's form, without the token).
    const checkout = spec.paths['/api/payments/stripe/create-checkout-session/']!.post!;
    expect(Object.keys(checkout.requestBody!.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    // The server's time beside what an event's times are compared with, for the phone's clock to be set by.
    for (const path of ['/api/events/{event}/', '/api/events/current/']) {
      const answer = spec.paths[path]!.get!.responses!['200']!.content!['application/json']!.schema as { required: string[]; properties: Record<string, { description?: string }> };
      expect(answer.required, path).toContain('now');
      expect(answer.properties.now?.description, path).toMatch(/server's time/);
    }
  });

  it('says what undo does, its refusals, and how long its chance lasts', () => {
    const undo = spec.paths['/api/matching/undo/']!;
    expect(undo.post!.summary).toMatch(/undo/i);
    expect(undo.post!.description).toEqual(expect.stringContaining('nothing_to_undo'));
    expect(undo.post!.description).toEqual(expect.stringContaining('deck:undone'));
    expect(undo.get!.summary).toMatch(/undo/i);
    const undoable = undo.get!.responses!['200']!.content!['application/json']!.schema as { properties: Record<string, { description?: string }> };
    expect(undoable.properties.expires_in_ms?.description).toMatch(/clock/);
    const body = undo.post!.requestBody!.content['application/json']!.schema as { properties?: Record<string, { description?: string }>; anyOf?: unknown[] };
    expect(JSON.stringify(body)).toContain('nothing_to_undo');
  });
});
