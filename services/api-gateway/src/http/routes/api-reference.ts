import type { Response } from 'express';
import Joi from 'joi';
import { AppError } from '@gateway/http-errors';
import {
  API_REFERENCE_CONTENT_SECURITY_POLICY,
  apiReferenceAssetNames,
  apiReferenceAssets,
  renderApiReferencePage,
  type ApiReferenceAssetName,
} from '../api-reference';
import { json, type OperationSpec, type Tag } from '../operation';
import type { RouteContext } from './context';

const OPENAPI_PATH = '/openapi.json';
const DOCS_PATH = '/docs';
/** An asset linked with its exact version never changes: cached for good. */
const IMMUTABLE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

const securityHeaders = (res: Response) =>
  res.set({
    'Content-Security-Policy': API_REFERENCE_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });

type ServedDocument = ReturnType<RouteContext['openApiDocument']>;

/** The document's text and its reference page, computed once per document. */
const served = new WeakMap<ServedDocument, { body: string; page: string }>();
function servedOf({ openApiDocument, config }: RouteContext): { body: string; page: string } {
  const document = openApiDocument();
  let texts = served.get(document);
  if (!texts) {
    texts = {
      body: JSON.stringify(document),
      page: renderApiReferencePage({
        title: document.info.title,
        base: DOCS_PATH,
        openApiUrl: OPENAPI_PATH,
        // "Try it out" is offered outside production only.
        tryItOut: config.APP_ENV !== 'production',
      }),
    };
    served.set(document, texts);
  }
  return texts;
}

/** The document's group of this family's operations. */
export const referenceTag: Tag = { name: 'Reference', description: 'This document and its rendering.' };

/**
 * /openapi.json (the document) and /docs (its reference page, Swagger UI served from node_modules): public, like the
 * probes, with no key and no rate limit; described in the document itself.
 */
export const apiReferenceOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Reference',
    area: 'public',
    summary: 'This document',
    answers: [json(200, 'The OpenAPI 3.1 document of the whole API.', Joi.object().unknown())],
    serve: (_req, res, context) => {
      res.status(200).type('application/json').set('Cache-Control', 'no-cache').send(servedOf(context).body);
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'Reference',
    area: 'public',
    summary: 'The API reference page rendered from this document',
    answers: [{ status: 200, description: 'The page.', mediaTypes: ['text/html'] }],
    serve: (_req, res, context) => {
      securityHeaders(res);
      res.status(200).type('html').set('Cache-Control', 'no-cache').send(servedOf(context).page);
    },
  },
  {
    method: 'get',
    path: '/docs/assets/{name}',
    operationId: 'getApiReferenceAsset',
    tag: 'Reference',
    area: 'public',
    summary: "The reference page's files (Swagger UI)",
    params: { name: Joi.string().valid(...apiReferenceAssetNames) },
    errors: ['NOT_FOUND'],
    answers: [
      { status: 200, description: 'The file.', mediaTypes: ['text/css', 'text/javascript', 'image/png'] },
    ],
    serve: async (req, res) => {
      securityHeaders(res);
      const name = req.params.name as ApiReferenceAssetName;
      if (!Object.prototype.hasOwnProperty.call(apiReferenceAssets, name)) throw new AppError('NOT_FOUND');
      const asset = apiReferenceAssets[name];
      const immutable = req.query.v === asset.version;
      await new Promise<void>((resolve, reject) =>
        res
          .type(asset.contentType)
          .sendFile(
            asset.file,
            { root: asset.root, maxAge: immutable ? IMMUTABLE_MAX_AGE_MS : 0, immutable },
            (err) => (err ? reject(err) : resolve()),
          ),
      );
    },
  },
];
