import { describeContextMemoryInN8n } from './support/context-memory-scenarios';

describeContextMemoryInN8n();
