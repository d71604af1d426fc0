import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { toNodeError } from './node-errors';

/**
 * The per-item loop both nodes share: one output item per input item, paired with it; under
 * continueOnFail() an item's error becomes `{ error }` for that item and the others go on.
 */
export async function mapItems(context: IExecuteFunctions, run: (itemIndex: number) => Promise<INodeExecutionData>): Promise<INodeExecutionData[]> {
  const output: INodeExecutionData[] = [];
  const count = context.getInputData().length;
  for (let itemIndex = 0; itemIndex < count; itemIndex++) {
    try {
      output.push(await run(itemIndex));
    } catch (error) {
      const nodeError = toNodeError(context, error, itemIndex);
      if (!context.continueOnFail()) throw nodeError;
      output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
    }
  }
  return output;
}
