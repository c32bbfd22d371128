import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { AppError } from '@gateway/http-errors';
import {
  API_REFERENCE_CONTENT_SECURITY_POLICY,
  apiReferenceAssetNames,
  apiReferenceAssets,
  renderApiReferencePage,
  type ApiReferenceAssetName,
} from '../api-reference';
import { json, type OperationSpec } from '../operation';

const OPENAPI_PATH = '/openapi.json';
const DOCS_PATH = '/docs';
/** An asset linked with its exact version never changes: cached for good. */
const IMMUTABLE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': API_REFERENCE_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};

/** The document and its reference page (served below), described in the document itself. */
export const apiReferenceOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Reference',
    area: 'public',
    summary: 'This document',
    answers: [json(200, 'The OpenAPI 3.1 document of the whole API.', Joi.object().unknown())],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'Reference',
    area: 'public',
    summary: 'The API reference page rendered from this document',
    answers: [{ status: 200, description: 'The page.', mediaTypes: ['text/html'] }],
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
  },
];

/**
 * /openapi.json (the document) and /docs (its reference page, Swagger UI served from node_modules): public, like
 * the probes, with no key and no rate limit. "Try it out" is offered outside production only.
 */
/** What the page needs of the document (the document itself is computed from the table these entries are in). */
type ServedDocument = Record<string, unknown> & { info: { title: string } };

export function apiReferenceRoutes(document: ServedDocument, options: { tryItOut: boolean }): Router {
  const router = Router();
  const body = JSON.stringify(document);
  const page = renderApiReferencePage({
    title: document.info.title,
    base: DOCS_PATH,
    openApiUrl: OPENAPI_PATH,
    tryItOut: options.tryItOut,
  });

  router.get(OPENAPI_PATH, (_req, res) => {
    res.status(200).type('application/json').set('Cache-Control', 'no-cache').send(body);
  });

  router.get(DOCS_PATH, securityHeaders, (_req, res) => {
    res.status(200).type('html').set('Cache-Control', 'no-cache').send(page);
  });

  router.get(`${DOCS_PATH}/assets/:name`, securityHeaders, (req, res, next) => {
    const name = req.params.name as ApiReferenceAssetName;
    if (!Object.prototype.hasOwnProperty.call(apiReferenceAssets, name))
      return next(new AppError('NOT_FOUND'));
    const asset = apiReferenceAssets[name];
    const immutable = req.query.v === asset.version;
    res
      .type(asset.contentType)
      .sendFile(
        asset.file,
        { root: asset.root, maxAge: immutable ? IMMUTABLE_MAX_AGE_MS : 0, immutable },
        (err) => err && next(err),
      );
  });

  return router;
}
