// rxslice/devtools: the inspector server for flight recordings and the Redux DevTools bridge.
// Named re-exports only: this file is the entry's API at a glance.
export { startInspector, serveInspector, InspectorListenError } from './inspector-server';
export type { Inspector, InspectorOptions, InspectorListenOptions, InspectorServer, ServeInspectorOptions, InspectorSource, InspectorSessionInfo, InspectorChange } from './inspector-server';
export { refusalOf } from './local-request-guard';
export type { LocalServerIdentity } from './local-request-guard';
export { InspectorModel } from './inspector-model';
export type { InspectorDefinitions, EventRow, EventPage, MachineView, TimelineEntry, Series, RecordingSummary } from './inspector-types';
export { connectDevTools, DevToolsError } from './redux-devtools';
export type { DevToolsOptions, DevToolsConnection, DevToolsAction, DevToolsState } from './redux-devtools';
