/**
 * Times the phases of one suite (services, install, start, scenarios, stop) and prints them as one block at
 * the end, followed by whatever the scenarios reported (e.g. which queue-mode worker ran which execution).
 */
export class PhaseClock {
	private readonly phases = new Map<string, { startedAt: number; ms?: number; note?: string }>();

	constructor(private readonly label: string) {}

	begin(phase: string): void {
		this.phases.set(phase, { startedAt: Date.now() });
	}

	end(phase: string): void {
		const entry = this.phases.get(phase);
		if (entry && entry.ms === undefined) entry.ms = Date.now() - entry.startedAt;
	}

	note(phase: string, note: string): void {
		const entry = this.phases.get(phase);
		if (entry) entry.note = note;
	}

	async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
		this.begin(phase);
		try {
			return await work();
		} finally {
			this.end(phase);
		}
	}

	print(report: string[] = []): void {
		const lines = [...this.phases].map(([phase, { ms, note }]) => {
			const duration = ms === undefined ? 'not finished' : `${(ms / 1000).toFixed(1)} s`;
			return `  ${phase.padEnd(38)} ${duration.padStart(9)}${note ? `  (${note})` : ''}`;
		});
		// Straight to stdout: jest's console.log would add a stack location to every line.
		const reported = report.length
			? `\n[e2e] ${this.label} report:\n${report.map((line) => `  ${line}`).join('\n')}\n`
			: '';
		process.stdout.write(`\n[e2e] ${this.label} phases:\n${lines.join('\n')}\n${reported}`);
	}
}
