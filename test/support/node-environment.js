// Jest runs each test file in its own vm context. @google/genai reaches Node's fetch machinery through
// globals (undici's global dispatcher, keyed by a registered symbol) and passes AbortSignals to the host's
// fetch; inside a jest context neither is the host's, and every Gemini call fails with "fetch failed".
// Sharing the host's objects keeps the SDKs' real network path working under jest, as it does in n8n.
const { TestEnvironment } = require('jest-environment-node');

const UNDICI_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

class HostFetchEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.global.AbortController = AbortController;
		this.global.AbortSignal = AbortSignal;
		Object.defineProperty(this.global, UNDICI_DISPATCHER, {
			configurable: true,
			get() {
				if (!globalThis[UNDICI_DISPATCHER]) new Headers(); // Node creates its dispatcher lazily.
				return globalThis[UNDICI_DISPATCHER];
			},
		});
	}
}

module.exports = HostFetchEnvironment;
