/** A dictionary of made-up names (phonemes and aliases, a tenth of them phrases) and sentences that use some of them. */
export function dictionaryRules(count: number): ({ text: string; phonemes: string } | { text: string; alias: string })[] {
  return Array.from({ length: count }, (_, i) => {
    const text = i % 10 === 0 ? `Name${i} Street` : `Name${i}`
    return i % 2 === 0 ? { text, phonemes: 'nˈeɪm' } : { text, alias: `name ${i}` }
  })
}

export const SENTENCES = [
  'The birch canoe slid on the smooth planks near Name10 Street.',
  'Glue the sheet to the dark blue background, said Name7.',
  'It is easy to tell the depth of a well.',
  'These days a chicken leg is a rare dish, and Name42 knows it.',
  'Rice is often served in round bowls.',
  'The juice of lemons makes fine punch for Name9999.',
  'The box was thrown beside the parked truck.',
  'The hogs were fed chopped corn and garbage.',
  'Four hours of steady work faced us.',
  'A large size in stockings is hard to sell.',
]
