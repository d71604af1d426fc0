// Stops the private PostgreSQL global-setup.js started for this jest run (nothing when the machine's was used).
module.exports = async () => {
	await globalThis.agentCoreTestPostgres?.stop();
};
