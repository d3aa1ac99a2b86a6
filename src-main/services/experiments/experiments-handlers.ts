import type { ExperimentMethods } from '../../contract/experiments'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { ExperimentService, type ExperimentsOptions } from './experiment-service'
import { PRESETS } from './presets'

/** Handlers of the experiments area: the contract's methods on the experiments service. */
export function experimentsHandlers(ctx: ServiceContext, options: ExperimentsOptions = {}): HandlerMap<ExperimentMethods> {
  const experiments = new ExperimentService(ctx, options)
  return {
    'experiments/presets': async () => ({ presets: PRESETS }),
    'experiments/validate': async (req) => experiments.validate(req.spec),
    'experiments/start': async (req) => experiments.start(req),
    'experiments/resume': async (req) => experiments.resume(req.experimentId),
    'experiments/list': async () => ({ experiments: experiments.list() }),
    'experiments/get': async (req) => experiments.get(req.experimentId),
    'experiments/export-csv': async (req) => experiments.exportCsv(req.experimentId),
    'experiments/delete': async (req) => ({ deleted: experiments.delete(req.experimentId) })
  }
}
