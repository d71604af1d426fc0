import { describeMemoryInN8n } from './support/memory-scenarios';

describeMemoryInN8n();
