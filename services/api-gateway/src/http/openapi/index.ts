export { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './document';
export { operations } from './operations';
