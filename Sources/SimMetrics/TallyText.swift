/// A shard's tally as text: one line per field, its key, a space and its values separated by
/// spaces. Written by `SummaryTally.text` and read back by `SummaryTally(text:)`, so that the
/// shards of a run merge into exactly what the unsharded run computes (`syncsim merge`).
public struct TallyText: Sendable {
  private var lines: [String: Substring] = [:]  // lookup only: the text keeps the order

  /// Reads the lines of `text`; a line without a key is ignored.
  public init(_ text: String) {
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
      lines[String(parts[0])] = parts.count > 1 ? parts[1] : ""
    }
  }

  /// Every key, sorted.
  public var keys: [String] { lines.keys.sorted() }

  /// The line of `key` past its key, as written; nil when the line is missing.
  public func raw(_ key: String) -> Substring? { lines[key] }

  /// The values of `key`, as text; nil when the line is missing.
  public func fields(_ key: String) -> [Substring]? {
    lines[key].map { $0.split(separator: " ") }
  }

  /// The values of `key` as whole numbers; nil when the line is missing or one is not a number.
  public func integers(_ key: String) -> [Int64]? {
    guard let fields = fields(key) else { return nil }
    var values: [Int64] = []
    values.reserveCapacity(fields.count)
    for field in fields {
      guard let value = Int64(field) else { return nil }
      values.append(value)
    }
    return values
  }

  /// The one whole number of `key`.
  public func integer(_ key: String) -> Int64? {
    guard let values = integers(key), values.count == 1 else { return nil }
    return values[0]
  }
}
