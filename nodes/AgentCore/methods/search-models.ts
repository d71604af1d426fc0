import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { ProviderName } from '../../../src/run-path';
import { modelFromCredential } from '../execute/inputs/provider-credential';

/** Lists the endpoint's models for the Model field; typing an ID stays possible when listing fails. */
export async function searchModels(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const provider = this.getNodeParameter('provider', 'openai') as ProviderName;
	const { model } = await modelFromCredential(this, provider, { maxRetries: 0 });
	const ids = (await model.listModels?.(AbortSignal.timeout(10_000))) ?? [];
	const needle = filter?.toLowerCase() ?? '';
	return {
		results: ids
			.filter((id) => id.toLowerCase().includes(needle))
			.map((id) => ({ name: id, value: id })),
	};
}
