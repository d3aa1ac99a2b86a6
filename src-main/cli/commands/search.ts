import { notYetImplemented } from '../not-yet'

export const searchCommand = notYetImplemented('search', 'Private noisy binary search for one anomaly, Monte Carlo evaluation', 5)
