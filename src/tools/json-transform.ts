import jmespath from 'jmespath';
import type { Tool } from './tool';

interface JsonTransformArgs {
  data: unknown;
  expression: string;
}

/** Applies a JMESPath expression to `data`; the result (JSON) is the observation. */
export const jsonTransformTool: Tool<JsonTransformArgs> = {
  name: 'json_transform',
  description:
    'Select, filter or reshape JSON data with a JMESPath expression, e.g. "items[?price > `10`].name" or "length(users)".',
  parameters: {
    type: 'object',
    properties: {
      data: { description: 'The JSON value to transform (object, array or scalar).' },
      expression: { type: 'string', minLength: 1, maxLength: 2000, description: 'A JMESPath expression.' },
    },
    required: ['data', 'expression'],
    additionalProperties: false,
  },
  async execute({ data, expression }) {
    try {
      const result = jmespath.search(data as any, expression);
      return result === undefined ? null : result;
    } catch (error) {
      throw new Error(describeJmespathError(expression, error as Error));
    }
  },
};

/** JMESPath's own messages are terse; add where it failed and the usual fixes. */
function describeJmespathError(expression: string, error: Error): string {
  const message = error.message || String(error);
  const hints: string[] = [];
  if (/Unknown character|Unexpected token/i.test(message)) {
    hints.push('quote keys that contain dashes or spaces with double quotes, e.g. "user-id"');
    hints.push('write literal numbers in backticks, e.g. [?age > `30`], and strings in single quotes');
  }
  if (/Unknown function/i.test(message)) {
    hints.push('JMESPath functions include length, keys, values, sort_by, max_by, min_by, contains, join, to_string');
  }
  const hintText = hints.length > 0 ? ` Hints: ${hints.join('; ')}.` : '';
  return `invalid JMESPath expression ${JSON.stringify(expression)}: ${message}.${hintText}`;
}
