import Foundation

/// Finding ASCII text in UTF-8 bytes: `memchr` to each candidate first byte, `memcmp` for the
/// rest. Reading a large log went through it for every line (Foundation's `range(of:)` went
/// through NSString and took most of the time), so the line filter and the message parser share
/// this one search.
enum ByteSearch {
  /// The offset of the first occurrence of `needle` in `haystack`, nil when there is none.
  static func firstOffset(of needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
    needle.withUnsafeBufferPointer { pattern in
      guard let base = haystack.baseAddress, let key = pattern.baseAddress, !pattern.isEmpty,
        haystack.count >= pattern.count
      else { return nil }
      var start = 0
      let last = haystack.count - pattern.count
      while start <= last {
        guard let found = memchr(base + start, Int32(key[0]), last - start + 1) else { return nil }
        let position = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
        if memcmp(base + position, key, pattern.count) == 0 { return position }
        start = position + 1
      }
      return nil
    }
  }
}

extension ArraySlice where Element == UInt8 {
  /// Whether `needle` occurs in these bytes.
  func contains(bytes needle: [UInt8]) -> Bool {
    withUnsafeBufferPointer { ByteSearch.firstOffset(of: needle, in: $0) != nil }
  }
}

extension Substring {
  /// The first occurrence of `needle` (ASCII), found in the UTF-8 bytes.
  func byteRange(of needle: String) -> Range<Index>? {
    let key = Array(needle.utf8)
    let found: Int?
    if let offset = utf8.withContiguousStorageIfAvailable({ ByteSearch.firstOffset(of: key, in: $0) }) {
      found = offset
    } else {
      // Not contiguous (a bridged string): search a native copy.
      var copy = String(self)
      found = copy.withUTF8 { ByteSearch.firstOffset(of: key, in: $0) }
    }
    guard let found else { return nil }
    let lower = utf8.index(utf8.startIndex, offsetBy: found)
    return lower..<utf8.index(lower, offsetBy: key.count)
  }

  /// Whether `needle` occurs (`byteRange(of:)`).
  func has(_ needle: String) -> Bool { byteRange(of: needle) != nil }
}
