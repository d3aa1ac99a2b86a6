/** Contract methods of the reports area (issue 9). Add each method here and to `reportsMethodNames`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ReportMethods {}

export const reportsMethodNames: Record<keyof ReportMethods, true> = {}
