import type { ExperimentMethods } from '../../contract/experiments'
import type { HandlerMap, ServiceContext } from '../handler-types'

/** Handlers of the experiments area (issue 7). */
export function experimentsHandlers(_ctx: ServiceContext): HandlerMap<ExperimentMethods> {
  return {}
}
