// A form built from an MCP question's requested schema (a flat object of strings, numbers, booleans, enums and
// multi-select lists, as MCP elicitations allow). It reads the answer back as the content the run checks: the run,
// not the page, has the last word on whether it fits.
import { h } from './dom.js';

type Schema = Record<string, unknown>;

/** The form and how to read what the person entered. */
export interface SchemaForm {
  form: HTMLFormElement;
  /** The content to send, or the first problem to show. */
  read: () => { content: Record<string, unknown> } | { problem: string };
}

/** Builds the form's fields from `requestedSchema` (unknown or malformed fields become JSON text fields). */
export function schemaForm(requestedSchema: unknown): SchemaForm {
  const schema = isObject(requestedSchema) ? requestedSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const fields = Object.entries(properties).map(([name, field]) =>
    fieldOf(name, isObject(field) ? field : {}, required.has(name)),
  );
  const form = h('form', { class: 'schema', novalidate: true }, ...fields.map((f) => f.element));
  return {
    form,
    read: () => {
      const content: Record<string, unknown> = {};
      for (const field of fields) {
        const value = field.read();
        if (value instanceof Problem) return { problem: value.problem };
        if (value !== undefined) content[field.name] = value;
      }
      return { content };
    },
  };
}

interface Field {
  name: string;
  element: HTMLElement;
  /** The field's value, undefined when left out, or why it cannot be sent. */
  read(): unknown;
}

/** Why a field's value cannot be sent. */
class Problem {
  constructor(readonly problem: string) {}
}

function fieldOf(name: string, field: Schema, required: boolean): Field {
  const title = typeof field.title === 'string' ? field.title : name;
  const hint = typeof field.description === 'string' ? field.description : undefined;
  const label = (control: HTMLElement, inline = false) =>
    inline
      ? h('label', { class: 'check' }, control, `${title}${required ? ' *' : ''}`)
      : h(
          'label',
          {},
          h('span', {}, `${title}${required ? ' *' : ''}`),
          control,
          hint !== undefined ? h('span', { class: 'hint' }, hint) : null,
        );
  const missing = () => new Problem(`${title} is required.`);
  const choices = choicesOf(field);

  if (field.type === 'boolean') {
    const input = h('input', { type: 'checkbox', name, checked: field.default === true });
    return { name, element: label(input, true), read: () => input.checked };
  }
  if (field.type === 'array' && isObject(field.items)) {
    const options = choicesOf(field.items) ?? [];
    const boxes = options.map(([value, text]) => h('input', { type: 'checkbox', name, value, 'aria-label': text }));
    const element = h(
      'fieldset',
      { class: 'choices' },
      h('legend', {}, title),
      ...boxes.map((box, i) => h('label', { class: 'check' }, box, options[i]![1])),
    );
    return {
      name,
      element,
      read: () => {
        const picked = boxes.filter((box) => box.checked).map((box) => box.value);
        return required && picked.length === 0 ? missing() : picked;
      },
    };
  }
  if (choices) {
    const select = h(
      'select',
      { name },
      ...(required ? [] : [h('option', { value: '' }, '—')]),
      ...choices.map(([value, text]) => h('option', { value, selected: field.default === value }, text)),
    );
    return {
      name,
      element: label(select),
      read: () => (select.value === '' ? (required ? missing() : undefined) : select.value),
    };
  }
  if (field.type === 'number' || field.type === 'integer') {
    const input = h('input', {
      type: 'number',
      name,
      step: field.type === 'integer' ? '1' : 'any',
      min: typeof field.minimum === 'number' ? String(field.minimum) : undefined,
      max: typeof field.maximum === 'number' ? String(field.maximum) : undefined,
      value: typeof field.default === 'number' ? String(field.default) : undefined,
    });
    return {
      name,
      element: label(input),
      read: () => {
        if (input.value.trim() === '') return required ? missing() : undefined;
        const value = Number(input.value);
        return Number.isFinite(value) ? value : new Problem(`${title} must be a number.`);
      },
    };
  }
  if (field.type === 'string' || field.type === undefined) {
    const input = h('input', {
      type: inputType(field.format),
      name,
      value: typeof field.default === 'string' ? field.default : undefined,
    });
    return {
      name,
      element: label(input),
      read: () => (input.value === '' ? (required ? missing() : undefined) : input.value),
    };
  }
  // Anything else the schema may hold is typed as JSON.
  const area = h('textarea', { name, placeholder: 'JSON' });
  return {
    name,
    element: label(area),
    read: () => {
      if (area.value.trim() === '') return required ? missing() : undefined;
      try {
        return JSON.parse(area.value) as unknown;
      } catch {
        return new Problem(`${title} must be JSON.`);
      }
    },
  };
}

/** The `[value, label]` choices of an enum field (`enum` with optional `enumNames`, or `oneOf` of `const`s). */
function choicesOf(field: Schema): Array<[string, string]> | undefined {
  if (Array.isArray(field.enum)) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : [];
    return field.enum.map((value, i) => [String(value), typeof names[i] === 'string' ? names[i] : String(value)]);
  }
  const options = Array.isArray(field.oneOf) ? field.oneOf : Array.isArray(field.anyOf) ? field.anyOf : undefined;
  if (!options?.every((o) => isObject(o) && 'const' in o)) return undefined;
  return (options as Schema[]).map((o) => [String(o.const), typeof o.title === 'string' ? o.title : String(o.const)]);
}

function inputType(format: unknown): string {
  switch (format) {
    case 'email':
      return 'email';
    case 'uri':
      return 'url';
    case 'date':
      return 'date';
    default:
      return 'text';
  }
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
