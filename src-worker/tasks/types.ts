/** A unit of engine work the pool can send to a worker: pure function of its payload, with progress reports. */
export interface TaskContext {
  /** Report how many of this batch's units are done (cumulative). Cheap: the worker throttles what it sends. */
  progress(done: number): void
}
