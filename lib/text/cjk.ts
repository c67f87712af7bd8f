/**
 * Chinese and Japanese punctuation: the ASCII mark espeak-ng needs to see a clause or sentence
 * end (it ignores the full-width forms in pinyin and kana text), and the pause it implies.
 */
import type { Pause } from './units.js'

const MARKS: Record<string, [string, Pause]> = {
  '。': ['.', 'sentence'], '．': ['.', 'sentence'], '！': ['!', 'sentence'], '？': ['?', 'sentence'], '…': ['...', 'sentence'],
  '.': ['.', 'sentence'], '!': ['!', 'sentence'], '?': ['?', 'sentence'],
  '，': [',', 'clause'], '、': [',', 'clause'], '；': [';', 'clause'], '：': [':', 'clause'], '・': [',', 'clause'],
  ',': [',', 'clause'], ';': [';', 'clause'], ':': [':', 'clause'],
}

/** The ASCII mark and pause of one punctuation character, or null when it carries no pause (quotes, brackets). */
export function cjkPunctuation(char: string): [string, Pause] | null {
  return MARKS[char] ?? null
}

/**
 * The pieces of a CJK text run: ideographs/kana, numbers, other words (Latin and other scripts),
 * whitespace, and single other characters. Offsets are UTF-16 indices into `text`.
 */
export const CJK_RUNS = /(\p{Script=Han}+)|(\d+(?:[.,]\d+)*)|([^\s\p{Script=Han}\p{P}\p{S}\d]+)|(\s+)|([\s\S])/gu
