/**
 * Accuracy previews (public inputs only, seeded): a batch of runs of a search on the least favourable scores its
 * question allows (engine/search/accuracy.ts), for one number of questions.
 */
import { type AccuracyCounts, type SearchQuestion, searchAccuracyRuns } from '../engine/search'

export interface SearchAccuracyBatch {
  question: SearchQuestion
  questions: number
  grid: number
  seed: string
  firstRun: number
  runs: number
}

export function searchAccuracyBatch(p: SearchAccuracyBatch): AccuracyCounts {
  return searchAccuracyRuns(p.question, p.questions, p.grid, p.seed, p.firstRun, p.runs)
}
