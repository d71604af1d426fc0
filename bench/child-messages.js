'use strict';
/**
 * Waits for the next IPC message of `type` from a forked benchmark helper (the model servers), or fails
 * when the child exits first, so a crashed server never leaves a benchmark waiting forever.
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} type
 * @param {string} what how the error names the child
 */
function nextMessage(child, type, what) {
	return new Promise((resolve, reject) => {
		const onMessage = (message) => {
			if (message?.type !== type) return;
			child.off('exit', onExit);
			child.off('message', onMessage);
			resolve(message);
		};
		const onExit = (code) => {
			child.off('message', onMessage);
			reject(new Error(`${what} exited (code ${code}) before answering "${type}"`));
		};
		child.on('message', onMessage);
		child.once('exit', onExit);
	});
}

module.exports = { nextMessage };
