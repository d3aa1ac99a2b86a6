import { notYetImplemented } from '../not-yet'

export const noiseCommand = notYetImplemented('noise', 'Samples from the Laplace and relaxation samplers, for audits', 3)
