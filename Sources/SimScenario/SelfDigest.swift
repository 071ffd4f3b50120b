import SimKernel

/// A text file that carries a digest of itself on its last line, `digest HEX` (64-bit FNV-1a of
/// every byte before that line): a byte edited, a line added or the end cut is found when read.
///
/// It guards against the accidents of a cluster (an interrupted copy, a hand edit, a disk that
/// returns other bytes), not against a forger, who can compute the digest too: what a forger
/// writes is still range-checked (`RunShardMerge.numberProblems`).
public enum SelfDigest {
  static let prefix = "digest "

  /// `text` (ending in a newline) with its digest line after it.
  public static func signed(_ text: String) -> String {
    text + prefix + String(StableHash.fnv1a(text), radix: 16) + "\n"
  }

  /// The text before the digest line when that line is last and matches; nil otherwise.
  public static func verified(_ text: String) -> Substring? {
    guard text.hasSuffix("\n") else { return nil }
    let withoutEnd = text.dropLast()
    guard let start = withoutEnd.lastIndex(of: "\n").map({ withoutEnd.index(after: $0) }) else { return nil }
    let line = withoutEnd[start...]
    guard line.hasPrefix(prefix), let digest = UInt64(line.dropFirst(prefix.count), radix: 16) else { return nil }
    let body = text[..<start]
    return StableHash.fnv1a(body.utf8) == digest ? body : nil
  }

  /// A signed text with its digest line made to match again (what a forger does; for tests).
  public static func resealed(_ text: String) -> String {
    guard text.hasSuffix("\n") else { return signed(text + "\n") }
    let withoutEnd = text.dropLast()
    let start = withoutEnd.lastIndex(of: "\n").map { withoutEnd.index(after: $0) } ?? withoutEnd.startIndex
    let body = withoutEnd[start...].hasPrefix(prefix) ? String(text[..<start]) : text
    return signed(body)
  }
}
