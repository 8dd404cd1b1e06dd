import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorDetail, FieldErrorMap } from '../../shared/schemas/errors';

/** Where the API's description lives: the browsable page, and its OpenAPI document at `/json`. */
export const API_DOCS_PREFIX = '/api/docs';

/**
 * A request body Fastify does not parse into `request.body` (multipart, a raw body checked against a
 * signature): described for the documentation only, never validated from here. Spread into a route's
 * schema: `schema: { ...documentedBody('multipart/form-data', UploadForm), response: … }`.
 */
export const documentedBody = (contentType: string, schema: z.ZodType) => ({ 'x-body': { contentType, schema } });
/** The content type a route's `documentedBody` names, if it names one. */
export const documentedContentType = (schema: unknown): string | undefined =>
  (schema as { 'x-body'?: { contentType?: string } } | undefined)?.['x-body']?.contentType;
/** A POST that takes no body at all, said outright so that the OpenAPI test can tell it from a forgotten schema. */
export const noBody = { 'x-body': 'none' } as const;
/**
 * A route anyone may call, without the token. Every other route takes it (the document's default
 * `security`); the OpenAPI test holds each route's word against a call without one (401 or not).
 */
export const withoutToken = { security: [] };

type Transform = typeof jsonSchemaTransform;

/** The zod provider's transform, plus the bodies described above and the error envelope on every route. */
const transform: Transform = (document) => {
  const result = jsonSchemaTransform(document);
  const schema = result.schema as Record<string, unknown> & { response?: Record<string, unknown> };
  if (!schema || schema.hide) return result;
  // Grouped by feature, as the URL names it (/api/<feature>/…); /healthz and /readyz are operations.
  schema.tags ??= [/^\/api\/([^/]+)/.exec(document.url)?.[1] ?? 'operations'];
  const body = schema['x-body'] as { contentType: string; schema: z.ZodType } | 'none' | undefined;
  if (body && body !== 'none') {
    delete schema['x-body'];
    schema.body = z.toJSONSchema(body.schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
    schema.consumes = [body.contentType];
  }
  // Documentation only: the error handler writes these (server/errors.ts), the route does not.
  schema.response = {
    ...schema.response,
    400: schema.response?.['400'] ?? errorJson.fields,
    '4XX': errorJson.detail,
  };
  return result;
};

const errorJson = {
  fields: {
    description: 'Every bad field at once, with `non_field_errors` for the request as a whole.',
    ...z.toJSONSchema(FieldErrorMap, { target: 'draft-2020-12' }),
  },
  detail: {
    description: '`{detail}`, with a machine `code` where the condition has one (shared/error-codes.ts).',
    ...z.toJSONSchema(ErrorDetail, { target: 'draft-2020-12' }),
  },
};

/**
 * OpenAPI 3.1 generated from the zod schemas every route declares, served at `/api/docs/json`, with a
 * browsable page at `/api/docs`. Registered before the features so that it sees each route as it is added.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Eventmatch API',
          version: '1',
          description:
            'The REST half of Eventmatch; the socket half is described in docs/socket-events.md. ' +
            'Signed-in calls send `Authorization: Token <token>` (from `POST /api/auth/`). Messages come ' +
            'in the language `Accept-Language` asks for (en or es; English otherwise).',
        },
        components: {
          securitySchemes: {
            token: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token <token>`' },
          },
        },
        // Every route, but those that say `withoutToken`.
        security: [{ token: [] }],
      },
      transform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(swaggerUi, { routePrefix: API_DOCS_PREFIX });
  },
  { name: 'api-docs' },
);
