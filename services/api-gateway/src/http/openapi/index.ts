export { buildOpenApiDocument, scopeSentence, type OpenApiDocument, type OpenApiOptions } from './document';
export { exampleId, operations, servedOperations, type OperationSpec } from './operations';
