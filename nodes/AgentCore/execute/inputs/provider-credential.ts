import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
} from 'n8n-workflow';
import {
	createChatModel,
	type ChatModel,
	type ProviderName,
	type ProviderOptions,
} from '../../../../src/run-path';

/** The credential type that holds each provider's key and address. */
const CREDENTIAL_TYPES: Record<ProviderName, string> = {
	openai: 'agentCoreOpenAiApi',
	gemini: 'agentCoreGeminiApi',
};

/** One place that turns a provider credential into a model, for the run and for the Model field's list. */
export async function modelFromCredential(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	provider: ProviderName,
	options: Omit<ProviderOptions, 'provider' | 'apiKey' | 'baseUrl'> & { itemIndex?: number } = {},
): Promise<{ apiKey: string; model: ChatModel }> {
	const { itemIndex, ...modelOptions } = options;
	const type = CREDENTIAL_TYPES[provider];
	const credentials: ICredentialDataDecryptedObject =
		itemIndex === undefined
			? await context.getCredentials(type)
			: await (context as IExecuteFunctions).getCredentials(type, itemIndex);
	const apiKey = String(credentials.apiKey ?? '');
	// The Gemini credential calls its address `host`, the OpenAI one `url`.
	const baseUrl =
		((provider === 'gemini' ? credentials.host : credentials.url) as string) || undefined;
	return { apiKey, model: createChatModel({ provider, apiKey, baseUrl, ...modelOptions }) };
}
