export { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './document';
export { exampleId, operations, type OperationSpec } from './operations';
