import type { ExperimentEngine } from '../../../contract/experiments'
import { aiqAdapter } from './aiq'
import { searchAdapter } from './search'
import { thresholdAdapter } from './threshold'
import type { EngineAdapter } from './types'

export const ENGINES = ['threshold', 'aiq', 'search'] as const satisfies readonly ExperimentEngine[]

export function engineAdapter(engine: ExperimentEngine): EngineAdapter {
  switch (engine) {
    case 'threshold':
      return thresholdAdapter as EngineAdapter
    case 'aiq':
      return aiqAdapter as EngineAdapter
    case 'search':
      return searchAdapter as EngineAdapter
  }
}
