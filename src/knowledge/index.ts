// The knowledge feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { knowledgeSlot } from './api';
export type { Knowledge } from './service';
