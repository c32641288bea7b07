import type { MachineLayer } from '../session/feature-layers';
import { installMachine, sessionMachine } from './session-machine.js';

/** @internal What a machine definition carries for `session.install` / `session.machine` (see `MACHINE_LAYER`). */
export const machineLayer: MachineLayer = { install: installMachine, machine: sessionMachine };
