import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { decodeProtectedHeader } from 'jose';

/** The Central Bank's API Pix document vendored next to the simulator (see spec/SOURCE.md for its version). */
export const API_PIX_SPEC_PATH = join(__dirname, '..', '..', 'spec', 'openapi.yaml');

type Schema = Record<string, unknown>;
interface MediaType {
  schema?: Schema;
}
interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
  callbacks?: Record<string, Record<string, Record<string, Operation>>>;
}
interface PathItem {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  [method: string]: unknown;
}

export interface RecordedReply {
  status: number;
  contentType: string | undefined;
  /** Raw text, as it came over the wire. */
  body: string;
}

/** Where a message breaks the document; empty when it conforms. */
export type Violations = string[];

/**
 * The API Pix document, dereferenced once, with a JSON Schema validator per schema it names. Requests are checked
 * against the operation's parameters and request body, answers against the status and media type the operation
 * declares, callbacks against the `listaPix` callback of `PUT /webhook/{chave}`.
 */
export class ApiPixSpec {
  private readonly ajv: Ajv;
  private readonly compiled = new WeakMap<object, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; literals: number }>;

  private constructor(private readonly document: { paths: Record<string, PathItem> }) {
    // OpenAPI 3.0 schemas carry keywords JSON Schema does not know (`example`, `maximum` on an array...): not strict.
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literals: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
      }))
      // `/loc` must win over `/{pixUrlAccessToken}`: the most literal template first.
      .sort((a, b) => b.literals - a.literals);
  }

  static async load(): Promise<ApiPixSpec> {
    const document = (await SwaggerParser.validate(API_PIX_SPEC_PATH)) as unknown as {
      paths: Record<string, PathItem>;
    };
    anchorPatterns(document);
    locationsWithoutScheme(document);
    documentErrata(document as unknown as { components: { schemas: Record<string, Schema> } });
    recErrata(document as unknown as ErrataDocument);
    return new ApiPixSpec(document);
  }

  /** The scopes the document asks for an operation (`security: OAuth2: [...]`). */
  scopesOf(method: string, path: string): string[] {
    const { operation } = this.operation(method, path);
    return (operation?.security ?? []).flatMap((requirement) => requirement.OAuth2 ?? []);
  }

  /**
   * A request to `path` (relative to the API Pix base, e.g. `/cob/abc...`) with its JSON body text. `template` names
   * the document's path when two read alike (`/cobv/{txid}` and the payload location `/cobv/{pixUrlAccessToken}`).
   */
  validateRequest(method: string, path: string, body: string, pathTemplate?: string): Violations {
    const { operation, pathItem, params, template } = this.operation(method, path, pathTemplate);
    if (!operation || !pathItem) return [`${method} ${path}: no such operation in API Pix`];
    const violations: Violations = [];
    for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
      if (parameter.in !== 'path' || !parameter.schema) continue;
      violations.push(
        ...this.check(parameter.schema, params[parameter.name], `${template} path ${parameter.name}`),
      );
    }
    const content = operation.requestBody?.content;
    if (content === undefined) {
      if (body.length > 0) violations.push(`${method} ${template}: the operation takes no body`);
      return violations;
    }
    const schema = content['application/json']?.schema;
    if (!schema) return [...violations, `${method} ${template}: no JSON body in the document`];
    return [...violations, ...this.check(schema, parseJson(body), `${method} ${template} body`)];
  }

  /** An answer to `method path`: its status must be one the operation lists, its body that status's schema. */
  validateResponse(method: string, path: string, reply: RecordedReply, pathTemplate?: string): Violations {
    const { operation, template } = this.operation(method, path, pathTemplate);
    if (!operation) return [`${method} ${path}: no such operation in API Pix`];
    const response = operation.responses[String(reply.status)] ?? operation.responses.default;
    if (!response)
      return [`${method} ${template}: status ${reply.status} is not among the documented answers`];
    const where = `${method} ${template} ${reply.status}`;
    if (!response.content) return reply.body.length > 0 ? [`${where}: the document declares no body`] : [];
    const mediaType = (reply.contentType ?? '').split(';')[0]!.trim();
    const declared = response.content[mediaType];
    if (!declared?.schema)
      return [`${where}: media type ${mediaType} is not ${Object.keys(response.content).join(' or ')}`];
    const value = mediaType === 'application/jose' ? jwsPayload(reply.body) : parseJson(reply.body);
    return this.check(declared.schema, value, where);
  }

  /** A PSP callback body (`POST {webhookUrl}/pix`), per the `listaPix` callback of `PUT /webhook/{chave}`. */
  validateCallback(body: string): Violations {
    const put = this.document.paths['/webhook/{chave}']?.put as Operation;
    const callback = put.callbacks?.listaPix?.['{$request.body#/webhookUrl}/pix']?.post;
    const schema = callback?.requestBody?.content?.['application/json']?.schema;
    if (!schema) return ['the document has no listaPix callback schema'];
    return this.check(schema, parseJson(body), 'callback POST {webhookUrl}/pix');
  }

  /** A recurrence callback body (`POST {webhookUrl}/rec`), per the `rec` callback of `PUT /webhookrec`. */
  validateRecCallback(body: string): Violations {
    const put = this.document.paths['/webhookrec']?.put as Operation;
    const callback = put.callbacks?.rec?.['{$request.body#/webhookUrl}/rec']?.post;
    const schema = callback?.requestBody?.content?.['application/json']?.schema;
    if (!schema) return ['the document has no rec callback schema'];
    return this.check(schema, parseJson(body), 'callback POST {webhookUrl}/rec');
  }

  /** A cycle callback body (`POST {webhookUrl}/cobr`), per the `cobr` callback of `PUT /webhookcobr`. */
  validateCobrCallback(body: string): Violations {
    const put = this.document.paths['/webhookcobr']?.put as Operation;
    const callback = put.callbacks?.cobr?.['{$request.body#/webhookUrl}/cobr']?.post;
    const schema = callback?.requestBody?.content?.['application/json']?.schema;
    if (!schema) return ['the document has no cobr callback schema'];
    return this.check(schema, parseJson(body), 'callback POST {webhookUrl}/cobr');
  }

  private operation(method: string, path: string, pathTemplate?: string) {
    const match = this.templates.find(
      (candidate) =>
        candidate.pattern.test(path) && (pathTemplate === undefined || candidate.template === pathTemplate),
    );
    if (!match) return { template: path, params: {} as Record<string, string> };
    const pathItem = this.document.paths[match.template]!;
    const operation = pathItem[method.toLowerCase()] as Operation | undefined;
    const names = [...match.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const values = new RegExp(`^${match.template.replace(/\{[^}]+\}/g, '([^/]+)')}$`).exec(path)!.slice(1);
    const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i]!)]));
    return { operation, pathItem, params, template: match.template };
  }

  private check(schema: Schema, value: unknown, where: string): Violations {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${where}: ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }
}

/**
 * The document's patterns (`[a-zA-Z0-9]{26,35}`, `\d{1,10}\.\d{2}`) describe whole values, as its texts say (a txid
 * "de 26 a 35 caracteres"), but JSON Schema matches a pattern anywhere in the string: anchored here, so a 40-character
 * txid or `"1.234"` fails as it would at a PSP. Patterns written as JavaScript literals between slashes (a CPF's
 * `/^\d{11}$/`, in a debtor, a payer and query parameters) mean the regular expression inside them, already anchored;
 * taken literally, they would ask for the slashes in the value.
 */
function anchorPatterns(node: unknown, seen = new Set<unknown>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const record = node as Record<string, unknown>;
  if (typeof record.pattern === 'string' && /^\/.+\/$/.test(record.pattern))
    record.pattern = record.pattern.slice(1, -1);
  else if (typeof record.pattern === 'string' && !record.pattern.startsWith('^'))
    record.pattern = `^(?:${record.pattern})$`;
  for (const value of Object.values(record)) anchorPatterns(value, seen);
}

/**
 * The document declares every `location` as `format: uri` while its own examples and every BR Code carry it without a
 * scheme (`pix.example.com/qr/v2/...`): a URI reference is what it means there. Every other `uri` (a webhook URL, a
 * problem type) stays a full URI.
 */
function locationsWithoutScheme(node: unknown, seen = new Set<unknown>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const record = node as Record<string, unknown>;
  const location = (record.properties as Record<string, { format?: unknown }> | undefined)?.location;
  if (location?.format === 'uri') location.format = 'uri-reference';
  for (const value of Object.values(record)) locationsWithoutScheme(value, seen);
}

/**
 * Four places where the document's schemas contradict their own properties, text and examples, and would refuse
 * every faithful answer (two of them also loosen what immediate charges are checked against: the list of `GET /cob`,
 * `CobsConsultadas`, and `GET /pix`, which lists the Pix of both kinds):
 * - `DadosRecebedor` (a cobv's `recebedor`) lists `logradouro`, `cidade`, `uf` and `cep` as required at the level of
 *   the charge itself, beside `recebedor`, while its `recebedor` requires them again and every example of the
 *   document (`cobResponse4`, `cobPayload2`) carries them inside `recebedor` only: required there alone.
 * - `CobVValor.desconto` is `oneOf` a form with `descontoDataFixa` (not required) and a form with `valorPerc`; a
 *   per-day discount (modalidades 3 to 6, `valorPerc`) matches both, so `oneOf` refuses it, though the document's
 *   `CobVOperacaoInvalida` text asks for exactly that form: the first form requires its `descontoDataFixa`.
 * - `CobsVConsultadas` (and `CobsConsultadas`) require each listed charge to carry `idCob`, a property the document
 *   defines nowhere and its example (`getCobsV1`) does not carry: not required.
 * - `PixConsultados` (`GET /pix`) requires `cobs`, while the list it defines (and its example `getPix1`) is `pix`:
 *   `pix` required instead.
 */
function documentErrata(document: { components: { schemas: Record<string, Schema> } }): void {
  const schemas = document.components.schemas;
  delete schemas.DadosRecebedor!.required;
  const desconto = (schemas.CobVValor!.properties as Record<string, Schema>).desconto!;
  (desconto.oneOf as Schema[])[0]!.required = ['descontoDataFixa'];
  for (const list of ['CobsVConsultadas', 'CobsConsultadas']) {
    const items = ((schemas[list]!.properties as Record<string, Schema>).cobs!.items as Schema)
      .allOf as Schema[];
    for (const part of items)
      if (Array.isArray(part.required))
        part.required = (part.required as string[]).filter((name) => name !== 'idCob');
  }
  schemas.PixConsultados!.required = ['parametros', 'pix'];
}

interface ErrataDocument {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema> };
}

/**
 * Ten more, in Pix Automático's part of the document (recurrences, the requests for their authorization, their cycles), each
 * contradicting the document's own properties, text or examples:
 * - `RecBase` requires `idRec` and `retentativa`. `retentativa` is defined nowhere (the property is
 *   `politicaRetentativa`, which `RecConfiguracao` already requires), and `idRec` is minted by the PSP: the request
 *   examples `recBody1` and `recBody2` carry neither, and `POST /rec` (`RecSolicitada`, built on `RecBase`) could never
 *   be valid. Required there: `calendario` and `vinculo`; the answers built on it (`RecGerada`, `RecCompleta`,
 *   `RecCompletaPesquisada`) require `idRec` themselves, as do `RecPayload` and `RecNotification`.
 * - `DadosPagadorRec` requires `ispbParticipante` and one of `cpf` / `cnpj` on the recurrence itself, while it defines
 *   them inside `pagador`, where every example carries them (`recResponse3`, `recResponse4`, `getRec1`): required in
 *   `pagador`.
 * - `SolicRecBase` requires `pagador`, a property it does not define and none of its examples carries
 *   (`solicRecBody1`, `solicRecResponse1` to `3`), and `SolicRecCompleta` requires `rec` while it defines, and its
 *   examples carry, `recPayload`: `pagador` not required, `recPayload` required in place of `rec`.
 * - `RecNotification` requires `atualizacao"` (a stray quote in `["idRec","status",atualizacao"]`): `atualizacao`.
 * - `RecEncerramento.encerramento` is `oneOf` a form with `rejeicao` and a form with `cancelamento`, neither required:
 *   every object matches both, so `oneOf` refuses every ended recurrence, the document's own `recResponse5`
 *   (`cancelamento`) included: each form requires its own property.
 * - `RecRevisada.vinculo.devedor` (`PATCH /rec/{idRec}`) is `oneOf` two forms that are the same (`{nome}`, one titled
 *   Pessoa Física, the other Pessoa Jurídica): every debtor matches both, so `oneOf` refuses the document's own
 *   `recBody3`: `anyOf`.
 * - `GET /rec` and `GET /rec/{idRec}` list no 400 answer, while the error section gives both `RecConsultaInvalida`
 *   (HTTP 400) with their violations: a 400 `Problema` added; and `GET /cobr`, the same for `CobRConsultaInvalida`.
 * - `PixAutomatico.valor` (a cycle's Pix) is a string (`\d{1,10}\.\d{2}`, "Valor do Pix.") that must also match
 *   `anyOf` the objects `PixValorOriginal`, `PixValorJuros`...: no value is both, so no cycle's Pix could be valid.
 *   Those objects are what `Pix.componentesValor` holds; on `valor`, dropped.
 * - `PayloadLocationRecGerada` (`POST /locrec`) requires `tipo`, a property it does not define (`POST /locrec` takes
 *   no body to name one) and its examples `payloadLocationRecResponse1`/`2` do not carry: not required. `GET /locrec`
 *   lists no 400 answer though the error section gives it `PayloadLocationRecConsultaInvalida` (400): added.
 * - `CobRAtualizacao.encerramento` (a cycle's), like the recurrence's, is `oneOf` a `cancelamento` form and a
 *   `rejeicao` form with neither required, so every cancelled cycle (the document's `cobRResponse4`) fails: each
 *   form requires its own property.
 */
function recErrata(document: ErrataDocument): void {
  const schemas = document.components.schemas;
  schemas.RecBase!.required = ['calendario', 'vinculo'];
  // Only the request (RecSolicitada) goes without the PSP's id: every answer still carries it.
  for (const answer of ['RecGerada', 'RecCompleta', 'RecCompletaPesquisada'])
    schemas[answer]!.required = [...((schemas[answer]!.required as string[] | undefined) ?? []), 'idRec'];
  const pagadorRec = schemas.DadosPagadorRec!;
  const pagador = (pagadorRec.properties as Record<string, Schema>).pagador!;
  pagador.required = ['ispbParticipante'];
  pagador.oneOf = pagadorRec.oneOf;
  delete pagadorRec.required;
  delete pagadorRec.oneOf;
  schemas.SolicRecBase!.required = ['calendario', 'idRec', 'destinatario'];
  schemas.SolicRecCompleta!.required = ['recPayload'];
  schemas.RecNotification!.required = ['idRec', 'status', 'atualizacao'];
  const encerramento = (schemas.RecEncerramento!.properties as Record<string, Schema>).encerramento!;
  const [rejeicao, cancelamento] = encerramento.oneOf as Schema[];
  rejeicao!.required = ['rejeicao'];
  cancelamento!.required = ['cancelamento'];
  for (const part of schemas.RecRevisada!.allOf as Schema[]) {
    const vinculo = (part.properties as Record<string, Schema> | undefined)?.vinculo;
    const devedor = (vinculo?.properties as Record<string, Schema> | undefined)?.devedor;
    if (devedor?.oneOf !== undefined) {
      devedor.anyOf = devedor.oneOf;
      delete devedor.oneOf;
    }
  }
  const cobrEncerramento = (schemas.CobRAtualizacao!.properties as Record<string, Schema>).encerramento!;
  const [cobrCancelamento, cobrRejeicao] = cobrEncerramento.oneOf as Schema[];
  cobrCancelamento!.required = ['cancelamento'];
  cobrRejeicao!.required = ['rejeicao'];
  delete ((schemas.PixAutomatico!.properties as Record<string, Schema>).valor as Schema).anyOf;
  schemas.PayloadLocationRecGerada!.required = ['id', 'location', 'criacao'];
  const problem = { content: { 'application/problem+json': { schema: schemas.Problema } } };
  for (const path of ['/rec', '/rec/{idRec}', '/cobr', '/locrec'])
    document.paths[path]!.get!.responses['400'] = problem;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The payload of a compact JWS (`header.payload.signature`), after checking it is one; the signature is not. */
function jwsPayload(text: string): unknown {
  const parts = text.split('.');
  if (parts.length !== 3) return `not a compact JWS: ${text.slice(0, 40)}`;
  decodeProtectedHeader(text);
  return parseJson(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
}
