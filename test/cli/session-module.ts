/** A `--session` module for `rxslice stats` / `rxslice inspect`: the recorded session's slices. */
import { Counter, Notes } from '../fixtures';

export const slices = [Notes, Counter];
