import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { agentCoreProperties } from './description';

/**
 * Fields whose default (in description.ts) is an expression over the item's `$json`, and the same
 * expression written in JavaScript. n8n 2.x evaluates every expression in an isolate, about 2.5 ms of its
 * main thread each (bench:webhook's profile); a field left at its default is computed here instead, with
 * the same result (test/default-expressions-node.test.ts compares both in n8n's engine).
 */
const IN_JAVASCRIPT = {
  prompt: (json: IDataObject) => json.chatInput ?? (json.body as IDataObject | undefined)?.prompt ?? json.prompt,
  sessionId: (json: IDataObject) => json.session_id ?? json.sessionId ?? '',
};

/** A field's default expression, as the panel defines it. */
export function defaultExpressionOf(name: keyof typeof IN_JAVASCRIPT): string {
  return String(agentCoreProperties.find((property) => property.name === name)?.default);
}

/** A field's value: its default expression computed directly when the field still holds it, else as n8n resolves it. */
export function readDefaultable(context: IExecuteFunctions, name: keyof typeof IN_JAVASCRIPT, itemIndex: number): unknown {
  if (context.getNodeParameter(name, itemIndex, undefined, { rawExpressions: true }) === defaultExpressionOf(name)) {
    return IN_JAVASCRIPT[name](context.getInputData()[itemIndex]?.json ?? {});
  }
  return context.getNodeParameter(name, itemIndex, undefined);
}
