/**
 * The texts every measurement speaks, in-process and through the command-line programs alike,
 * so the two sides of each table hear exactly the same words. Plain prose, no markup, no digits:
 * the benchmark measures synthesis, not normalisation.
 */

/** Time-to-first-audio text: two short sentences, the shape of a typical assistant reply. */
export const TWO_SENTENCES = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'

/** Harvard sentences, lists 1 and 2 (IEEE 1969, public domain): each is spoken as its own request. */
export const HARVARD_SENTENCES: readonly string[] = [
  'The birch canoe slid on the smooth planks.',
  'Glue the sheet to the dark blue background.',
  "It's easy to tell the depth of a well.",
  'These days a chicken leg is a rare dish.',
  'Rice is often served in round bowls.',
  'The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck.',
  'The hogs were fed chopped corn and garbage.',
  'Four hours of steady work faced us.',
  'A large size in stockings is hard to sell.',
  'The boy was there when the sun rose.',
  'A rod is used to catch pink salmon.',
  'The source of the huge river is the clear spring.',
  'Kick the ball straight and follow through.',
  'Help the woman get back to her feet.',
  'A pot of tea helps to pass the evening.',
  'Smoky fires lack flame and heat.',
  "The soft cushion broke the man's fall.",
  'The salt breeze came across from the sea.',
  'The girl at the booth sold fifty bonds.',
]

/**
 * Sentences over 60 characters with a clause punctuated inside: spoken alone, each is a session's
 * first sentence, which flite starts with its first clause as a chunk of its own. Their word error
 * rate, ours against the flite program's (which speaks each whole), shows what that cut costs.
 */
export const CLAUSE_SENTENCES: readonly string[] = [
  'The old lighthouse stood at the end of a long spit of sand, and for most of its life it had been kept by people who rarely left it.',
  'Reading those pages now, one is struck less by the danger than by the rhythm.',
  'When a boat was late, the whole town knew it within the hour.',
  'First the oil lamp gave way to an electric bulb, and the keepers no longer had to trim wicks.',
  'He never complained about the change, and he kept his logbook going all the same.',
  'Inside the cottage, under glass, there are logbooks open at random pages.',
  'The work was not hard, but it never stopped from one season to the next.',
  'If the weather holds tomorrow, we will walk along the river to the old mill.',
  'Before you leave the office tonight, please lock the back door and switch off the lights.',
  'Although the train was late, most of the passengers reached the meeting on time.',
  'After the storm had passed, the children ran down to the beach to look for shells.',
  'The doctor listened carefully, then wrote a short note and handed it to the nurse.',
  'When the evening comes and the beam begins to turn, the visitors usually fall silent.',
  'Your order has been shipped, and it should arrive at your door within three days.',
  'To reset your password, open the settings page and choose the security tab.',
  'In the morning, the market fills with farmers selling bread, cheese and fresh fruit.',
  'As the sun went down, the fishing boats came back into the harbour one by one.',
  'The museum is open every day except Monday, from ten in the morning until six.',
  'Thank you for calling, a member of our team will be with you in a few minutes.',
  'Once the water begins to boil, add the pasta and stir it gently for a minute.',
]

/** About a thousand words of plain English prose, spoken as one request. */
export const THOUSAND_WORDS = [
  'The old lighthouse stood at the end of a long spit of sand, and for most of its life it had been kept by people who',
  'rarely left it. They rose before dawn, climbed the spiral stairs, trimmed the wicks, polished the great lens, and',
  'wrote a few careful lines in the logbook before they ate breakfast. The work was not hard, but it never stopped.',
  'A single night of neglect could put a ship on the rocks, and every keeper knew the names of the wrecks that had',
  'given the coast its reputation. The logbooks that survive are plain and patient. They record the wind, the state',
  'of the sea, the passing of ships, the arrival of the supply boat, and now and then a small event that must have',
  'seemed enormous at the time: a storm that tore the shutters away, a seal asleep on the landing stage, a child born',
  'in the cottage below the tower during a week when no doctor could cross the bar.',
  'Reading those pages now, one is struck less by the danger than by the rhythm. Each day was built from the same',
  'small tasks, done in the same order, by people who understood that reliability is not a single heroic act but a',
  'habit kept up for years. The lamp had to be lit at sunset whether or not anyone was watching. The glass had to be',
  'cleaned whether or not it looked dirty. The clockwork that turned the lens had to be wound every few hours through',
  'the night, and the keeper on watch could not sleep until his relief climbed the stairs to take his place. There is',
  'a kind of quiet pride in the way they wrote about it, as if the light itself were a promise made to strangers.',
  'The town that grew up behind the dunes depended on the sea in other ways. Fishing boats left the harbour before',
  'first light and came back in the afternoon with their holds full of herring and mackerel, or nearly empty, depending',
  'on the season and on luck. The women mended nets on the quay and salted the catch in long wooden troughs. Children',
  'learned to read the weather from the colour of the water and the shape of the clouds long before they learned',
  'to read books. When a boat was late, the whole town knew it within the hour, and people drifted down to the',
  'harbour wall to stand and watch the horizon without saying very much.',
  'Change, when it came, came quietly. First the oil lamp gave way to an electric bulb, and the keepers no longer',
  'had to trim wicks or carry fuel up the stairs. Then the clockwork was replaced by a small motor that turned the',
  'lens without anyone having to wind it. Then a radio beacon was added, and ships began to find their way by signals',
  'they could not see. Each change made the work lighter, and each one made the keepers a little less necessary.',
  'Finally the light was made automatic, and the last keeper locked the door of the cottage, handed the keys to an',
  'engineer from the city, and moved into a house in the town from which he could still see the tower every evening.',
  'He lived there for many years. People said that he still woke in the night at the hours when he used to wind the',
  'clockwork, and that he would stand at his window until he had seen the beam sweep twice across the water, as if',
  'to make sure that the machine was doing its job. He never complained about the change. When asked, he said that',
  'the light was what mattered, not the man who kept it, and that a light which could look after itself was a better',
  'light than one which depended on a tired person climbing stairs in the middle of a storm. But he kept his logbook',
  'going, all the same, writing down the wind and the weather and the ships he saw, long after there was anyone to',
  'read it.',
  'Today the tower is painted every few summers, and the cottage below it has become a small museum. Visitors can climb',
  'the stairs, stand on the gallery, and look out over the same stretch of water that the keepers watched for so long.',
  'Inside, under glass, there are logbooks open at random pages, and it is worth stopping to read them. The handwriting',
  'changes from one keeper to the next, but the voice is strangely constant: careful, unhurried, attentive to small',
  'things. A calm night. A strong swell from the south. The supply boat delayed by fog. Lamp lit at sunset, all well.',
  'There is a lesson in those pages that has nothing to do with the sea. Most of what keeps the world running is not',
  'dramatic. It is maintenance, repeated without applause, by people who take it for granted that the job must be done',
  'properly every single time because someone they will never meet is relying on it. The keepers understood that. They',
  'did not think of themselves as heroes, and most of them would have been embarrassed to be called one. They thought',
  'of themselves as people who looked after a light, and they did it well, night after night, for as long as they',
  'were asked to.',
  'When the evening comes and the beam begins to turn, the visitors on the beach usually fall silent for a moment.',
  'It is hard to say exactly why. Perhaps it is simply that a light in the dark is one of the oldest signs of care',
  'that people have, a way of saying to someone far away that they are not alone and that the way home is still open.',
  'The machine that turns the lens today knows nothing of that, of course. But the people who built the tower knew it,',
  'and so did the keepers, and something of what they knew seems to linger in the place, in the worn steps and the',
  'polished brass and the patient pages of the logbooks, waiting for anyone who cares to notice it.',
].join(' ')

/** Words in a text, counted the way a reader would (whitespace-separated). */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length
}
