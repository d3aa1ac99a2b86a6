import { notYetImplemented } from '../not-yet'

export const aiqCommand = notYetImplemented('aiq', 'Anomaly identification query under sensitive privacy or optimal DP', 4)
