/// The position of a payload-free enum's case, read from its one byte of storage.
extension RawRepresentable where Self: CaseIterable {
  /// The case's position in declaration order, which is `allCases` order: stable across
  /// processes (unlike a string's hash value).
  ///
  /// Every enum it is used on is raw-valued without payloads, of 2 to 256 cases: stored as one
  /// byte, that position (a test checks each against `allCases`). Read directly: walking
  /// `allCases` built or fetched an array on every observation.
  @inline(__always) var position: UInt8 {
    precondition(MemoryLayout<Self>.size == 1)
    return unsafeBitCast(self, to: UInt8.self)
  }
}
