/** Where the CLI lets a fallback take its API key from the environment: only where the primary sends that same key. */
import type { ProviderName, ProviderOptions } from '../providers/create-model';

/** Where each SDK sends requests when no base URL is given (openai-node's and @google/genai's defaults). */
const DEFAULT_BASE_URLS: Record<ProviderName, string> = {
	openai: 'https://api.openai.com/v1',
	gemini: 'https://generativelanguage.googleapis.com',
};

/**
 * The origin (scheme, host, port) requests to `baseUrl` go to, as the WHATWG URL parser normalises it:
 * scheme and host lower-cased, a default port dropped, userinfo left out. Undefined for anything that is
 * not an http(s) URL, which never counts as the same origin as anything.
 */
export function originOf(baseUrl: string | undefined, provider: ProviderName): string | undefined {
	try {
		const url = new URL(baseUrl || DEFAULT_BASE_URLS[provider]);
		return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Why a fallback given no `--fallback-api-key` may not take its provider's environment key, or undefined
 * when it may. A fallback of the primary's provider reads the very variable the primary's key comes from
 * (OPENAI_API_KEY, GEMINI_API_KEY), so it may do so only on the primary's origin: a key is not handed to a
 * host it was not given for. A fallback of the other provider reads that provider's own variable, which
 * the primary never sends anywhere.
 */
export function environmentKeyRefusal(
	primary: ProviderOptions,
	fallback: ProviderOptions,
	environmentKey: string,
): string | undefined {
	if (fallback.provider !== primary.provider) return undefined;
	const primaryOrigin = originOf(primary.baseUrl, primary.provider);
	const fallbackOrigin = originOf(fallback.baseUrl, fallback.provider);
	if (fallbackOrigin !== undefined && fallbackOrigin === primaryOrigin) return undefined;
	return (
		`--fallback-api-key KEY is needed: the fallback's base URL (${fallbackOrigin ?? 'not an http(s) URL'}) is not on the primary's origin ` +
		`(${primaryOrigin ?? 'not an http(s) URL'}), so it may not reuse ${environmentKey}; pass the key for the fallback's host`
	);
}
