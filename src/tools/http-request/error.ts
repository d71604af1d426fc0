/**
 * A refusal or failure of http_request whose message is already written for the model; any other error
 * reaching the tool boundary is wrapped as "http_request failed: …".
 */
export class HttpRequestError extends Error {
	override name = 'HttpRequestError';
}
