// The model behind the "try this tool" form: a tool's JSON Schema is read into a tree of
// fields; the form edits a draft (strings for numbers, so half-typed input is kept); `collect`
// turns the draft into the arguments object, or into a list of validation errors by path.
// Covered: string, number, integer, boolean, enum, arrays of those, nested objects; anything
// else (oneOf, arrays of objects, untyped) is edited as raw JSON.
import type { MessageKey } from '../i18n/index.svelte';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: unknown };

export type Field =
  | { kind: 'string'; schema: Schema; multiline: boolean }
  | { kind: 'number'; schema: Schema; integer: boolean }
  | { kind: 'boolean'; schema: Schema }
  | { kind: 'enum'; schema: Schema; options: Json[] }
  | { kind: 'array'; schema: Schema; item: Field }
  | { kind: 'object'; schema: Schema; properties: Property[] }
  | { kind: 'json'; schema: Schema };

export type Property = { name: string; field: Field; required: boolean };

/** A draft value: what the inputs hold before conversion. */
export type Draft = string | boolean | null | Draft[] | { [key: string]: Draft };

/** One validation failure: where (a path like `a.b[0]`) and what (a catalogue key + params). */
export type FieldError = { path: string; key: MessageKey; params?: Record<string, string | number> };

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function mainType(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === 'string' && t !== 'null');
  if (isObject(schema.properties)) return 'object';
  return undefined;
}

function objectField(schema: Schema): Field {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  const properties = Object.entries(props).map(([name, sub]) => ({
    name,
    field: fieldOf(isObject(sub) ? sub : {}),
    required: required.includes(name),
  }));
  return { kind: 'object', schema, properties };
}

/** Reads a JSON Schema into the field it is edited with. */
export function fieldOf(schema: Schema): Field {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { kind: 'enum', schema, options: schema.enum as Json[] };
  if ('const' in schema) return { kind: 'enum', schema, options: [schema.const as Json] };
  switch (mainType(schema)) {
    case 'string':
      return { kind: 'string', schema, multiline: Number(schema.maxLength ?? 0) > 200 || schema.format === 'textarea' };
    case 'number':
    case 'integer':
      return { kind: 'number', schema, integer: mainType(schema) === 'integer' };
    case 'boolean':
      return { kind: 'boolean', schema };
    case 'object':
      return isObject(schema.properties) ? objectField(schema) : { kind: 'json', schema };
    case 'array': {
      const item = fieldOf(isObject(schema.items) ? schema.items : {});
      return ['string', 'number', 'boolean', 'enum'].includes(item.kind) ? { kind: 'array', schema, item } : { kind: 'json', schema };
    }
    default:
      return { kind: 'json', schema };
  }
}

/** The draft a field starts with (the schema's default when it has one). */
export function initialDraft(field: Field): Draft {
  const def = field.schema.default as Json | undefined;
  switch (field.kind) {
    case 'string':
      return typeof def === 'string' ? def : '';
    case 'number':
      return typeof def === 'number' ? String(def) : '';
    case 'boolean':
      return typeof def === 'boolean' ? def : null;
    case 'enum': {
      const index = def === undefined ? -1 : field.options.findIndex((o) => JSON.stringify(o) === JSON.stringify(def));
      return index >= 0 ? String(index) : field.options.length === 1 ? '0' : '';
    }
    case 'array':
      return Array.isArray(def) ? def.map((v) => (field.item.kind === 'boolean' ? Boolean(v) : String(v))) : [];
    case 'object':
      return Object.fromEntries(field.properties.map((p) => [p.name, initialDraft(p.field)]));
    case 'json':
      return def === undefined ? '' : JSON.stringify(def, null, 2);
  }
}

/** Whether a draft holds nothing the user typed (so an optional field is left out). */
export function isEmpty(draft: Draft): boolean {
  if (draft === null || draft === '') return true;
  if (Array.isArray(draft)) return draft.length === 0;
  if (typeof draft === 'object') return Object.values(draft).every(isEmpty);
  return false;
}

type Out = { value?: Json; errors: FieldError[] };

function err(path: string, key: MessageKey, params?: Record<string, string | number>): Out {
  return { errors: [{ path, key, ...(params ? { params } : {}) }] };
}

function num(schema: Schema, key: string): number | undefined {
  return typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
}

function collectString(schema: Schema, text: string, path: string): Out {
  const min = num(schema, 'minLength');
  const max = num(schema, 'maxLength');
  const length = [...text].length;
  if (min !== undefined && length < min) return err(path, 'schema.minLength', { min });
  if (max !== undefined && length > max) return err(path, 'schema.maxLength', { max });
  if (typeof schema.pattern === 'string') {
    try {
      if (!new RegExp(schema.pattern, 'u').test(text)) return err(path, 'schema.pattern', { pattern: schema.pattern });
    } catch {
      // A pattern JavaScript cannot compile is left to the server's own validation.
    }
  }
  return { value: text, errors: [] };
}

function collectNumber(field: Extract<Field, { kind: 'number' }>, text: string, path: string): Out {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) return err(path, 'schema.notNumber');
  if (field.integer && !Number.isInteger(value)) return err(path, 'schema.notInteger');
  const s = field.schema;
  const [min, max, xmin, xmax] = [num(s, 'minimum'), num(s, 'maximum'), num(s, 'exclusiveMinimum'), num(s, 'exclusiveMaximum')];
  if (min !== undefined && value < min) return err(path, 'schema.minimum', { min });
  if (max !== undefined && value > max) return err(path, 'schema.maximum', { max });
  if (xmin !== undefined && value <= xmin) return err(path, 'schema.exclusiveMinimum', { min: xmin });
  if (xmax !== undefined && value >= xmax) return err(path, 'schema.exclusiveMaximum', { max: xmax });
  return { value, errors: [] };
}

function collectArray(field: Extract<Field, { kind: 'array' }>, items: Draft[], path: string): Out {
  const outs = items.map((item, i) => collectValue(field.item, item, `${path}[${i}]`, true));
  const errors = outs.flatMap((o) => o.errors);
  const [min, max] = [num(field.schema, 'minItems'), num(field.schema, 'maxItems')];
  if (min !== undefined && items.length < min) errors.push({ path, key: 'schema.minItems', params: { min } });
  if (max !== undefined && items.length > max) errors.push({ path, key: 'schema.maxItems', params: { max } });
  return errors.length ? { errors } : { value: outs.map((o) => o.value as Json), errors };
}

function collectObject(field: Extract<Field, { kind: 'object' }>, draft: { [key: string]: Draft }, path: string): Out {
  const value: { [key: string]: Json } = {};
  const errors: FieldError[] = [];
  for (const prop of field.properties) {
    const sub = draft[prop.name] ?? initialDraft(prop.field);
    const out = collectValue(prop.field, sub, path ? `${path}.${prop.name}` : prop.name, prop.required);
    errors.push(...out.errors);
    if (out.value !== undefined) value[prop.name] = out.value;
  }
  return errors.length ? { errors } : { value, errors };
}

function collectJson(text: string, path: string): Out {
  try {
    return { value: JSON.parse(text) as Json, errors: [] };
  } catch {
    return err(path, 'schema.invalidJson');
  }
}

/** Turns one field's draft into its value; an empty optional field gives no value. */
export function collectValue(field: Field, draft: Draft, path: string, required: boolean): Out {
  if (field.kind !== 'object' && field.kind !== 'array' && isEmpty(draft)) {
    return required ? err(path, 'schema.required') : { errors: [] };
  }
  if (field.kind === 'object' && !required && path !== '' && isEmpty(draft)) return { errors: [] };
  switch (field.kind) {
    case 'string':
      return collectString(field.schema, String(draft), path);
    case 'number':
      return collectNumber(field, String(draft), path);
    case 'boolean':
      return { value: Boolean(draft), errors: [] };
    case 'enum':
      return { value: field.options[Number(draft)] ?? null, errors: [] };
    case 'array':
      if (!required && isEmpty(draft)) return { errors: [] };
      return collectArray(field, Array.isArray(draft) ? draft : [], path);
    case 'object':
      return collectObject(field, typeof draft === 'object' && draft !== null && !Array.isArray(draft) ? draft : {}, path);
    case 'json':
      return collectJson(String(draft), path);
  }
}

/** The arguments object for a tool's input schema, or the errors that stop it. */
export function collect(field: Field, draft: Draft): { ok: true; value: Json } | { ok: false; errors: FieldError[] } {
  const out = collectValue(field, draft, '', true);
  return out.errors.length ? { ok: false, errors: out.errors } : { ok: true, value: out.value ?? {} };
}

/** A copy of `draft` with the value at `segments` replaced (drafts are never mutated). */
export function setIn(draft: Draft, segments: (string | number)[], value: Draft): Draft {
  const [head, ...rest] = segments;
  if (head === undefined) return value;
  if (Array.isArray(draft) && typeof head === 'number') {
    return draft.map((item, i) => (i === head ? setIn(item, rest, value) : item));
  }
  const object = typeof draft === 'object' && draft !== null && !Array.isArray(draft) ? draft : {};
  return { ...object, [head]: setIn(object[head] ?? null, rest, value) };
}
