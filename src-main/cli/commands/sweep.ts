import { notYetImplemented } from '../not-yet'

export const sweepCommand = notYetImplemented('sweep', 'Run an experiment spec (parameter sweep) on the worker pool', 7)
