import { notYetImplemented } from '../not-yet'

export const thresholdCommand = notYetImplemented('threshold', 'Monte Carlo evaluation of a threshold-query mechanism on a workload CSV', 3)
