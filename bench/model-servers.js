'use strict';
/**
 * Child process of engine-overhead.js: hosts the model servers, so that their CPU time is not counted in the
 * benchmark process's `process.cpuUsage()`, which then measures the clients alone.
 *
 * Messages from the parent: `{ type: 'counts' }` → `{ type: 'counts', protocol, native }` (model calls served
 * so far by each server); `{ type: 'close' }` closes both servers and ends this process. It also ends when
 * the parent goes away, so a crashed benchmark leaves nothing running.
 */
const path = require('node:path');
const { startNativeToolServer } = require('./native-tool-server');
const { FINAL_ANSWER, protocolReply } = require('./scenario');

const { startScriptedServer } = require(
	path.join(__dirname, '..', 'dist', 'src', 'demo', 'scripted-server.js'),
);

async function main() {
	let protocolCalls = 0;
	const scripted = await startScriptedServer({
		// The position in the run is read from the conversation (one assistant message per earlier call), so
		// runs need no reset between them.
		script: (request) => {
			protocolCalls++;
			// The server keeps every request for tests; a benchmark would only grow this process's heap with them.
			scripted.requests.length = 0;
			const earlierCalls = request.messages.filter(
				(message) => message.role === 'assistant',
			).length;
			return protocolReply(earlierCalls);
		},
	});
	const native = await startNativeToolServer({ finalAnswer: FINAL_ANSWER });

	let closing;
	const close = () => {
		closing ??= Promise.all([scripted.close(), native.close()]).finally(() => {
			if (process.connected) process.disconnect();
		});
		return closing;
	};

	process.on('message', (message) => {
		if (message?.type === 'counts')
			process.send({ type: 'counts', protocol: protocolCalls, native: native.modelCalls() });
		else if (message?.type === 'close') void close();
	});
	process.on('disconnect', () => void close());
	process.send({
		type: 'ready',
		protocolBaseUrl: scripted.openaiBaseUrl,
		nativeBaseUrl: native.baseUrl,
	});
}

main().catch((error) => {
	console.error(`model servers: ${error?.stack ?? error}`);
	process.exitCode = 1;
	if (process.connected) process.disconnect();
});
