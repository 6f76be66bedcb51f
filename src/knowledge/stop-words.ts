// English words too common to help ranking: Lucene's classic English stop set plus the pronouns
// and question words people put in questions ("how do I ...", "what is my ...").
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on',
  'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
  'i', 'me', 'my', 'we', 'our', 'you', 'your', 'he', 'she', 'its', 'it\'s', 'them', 'do', 'does', 'did', 'can', 'could',
  'should', 'would', 'how', 'what', 'which', 'who', 'whom', 'when', 'where', 'why', 'been', 'being', 'have', 'has', 'had',
  'am', 'so', 'than', 'too', 'very', 'just', 'about', 'from', 'up', 'out', 'some', 'any', 'all', 'also',
]);
