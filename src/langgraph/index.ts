// Entry point rxslice/langgraph: a LangGraph.js checkpointer (BaseCheckpointSaver) on rxslice
// storage. @langchain/langgraph-checkpoint and @langchain/core are its optional peers.
// Named re-exports only: this file is the entry's API at a glance.

export { RxSliceSaver, RxSliceSaverError } from './rxslice-saver';
export type { LangGraphRecord, LangGraphBlob } from './rxslice-saver';
