import { notYetImplemented } from '../not-yet'

export const minentCommand = notYetImplemented('minent', 'Min-entropy privacy metric for a vector of per-predicate epsilons', 3)
