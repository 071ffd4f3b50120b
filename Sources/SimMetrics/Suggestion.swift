// "Did you mean" hints, shared by every layer that reads a name a person typed: scenario keys,
// metric names, command-line flags and report options.

/// Edit distance, for "did you mean" hints.
public func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a.lowercased()), b = Array(b.lowercased())
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + [Int](repeating: 0, count: b.count)
    for j in 1...b.count {
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}

/// The metric a misspelt or synonymous name most likely means: `latency.median` is
/// `latency.p50`, `latency.average` is `latency.mean`; otherwise the nearest by edit distance.
public func metricSuggestion(for name: String, among metrics: [String]) -> String? {
  let synonyms = [("median", "p50"), ("average", "mean"), ("avg", "mean"), ("p100", "max"), ("maximum", "max")]
  for (word, replacement) in synonyms where name.hasSuffix("." + word) {
    let candidate = String(name.dropLast(word.count)) + replacement
    if metrics.contains(candidate) { return candidate }
  }
  return suggestion(for: name, among: metrics)
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
public func suggestion(for word: String, among candidates: [String]) -> String? {
  let length = word.count
  let limit = max(2, length / 3)
  // The edit distance is at least the difference in length: a candidate that far off is never
  // suggested, so it is not scored (a megabyte-long key would otherwise take seconds).
  let scored = candidates.filter { abs($0.count - length) <= limit }
    .map { ($0, editDistance(word, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
  guard let best = scored.first, best.1 <= limit else { return nil }
  return best.0
}
