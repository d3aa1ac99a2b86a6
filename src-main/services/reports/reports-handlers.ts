import type { ReportMethods } from '../../contract/reports'
import type { HandlerMap, ServiceContext } from '../handler-types'

/** Handlers of the reports area (issue 9). */
export function reportsHandlers(_ctx: ServiceContext): HandlerMap<ReportMethods> {
  return {}
}
