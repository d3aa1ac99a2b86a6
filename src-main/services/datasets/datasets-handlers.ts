import type { DatasetMethods } from '../../contract/datasets'
import type { HandlerMap, ServiceContext } from '../handler-types'

/** Handlers of the datasets area (issue 6). */
export function datasetsHandlers(_ctx: ServiceContext): HandlerMap<DatasetMethods> {
  return {}
}
